// The real kubectl 1.35 against a real `kubedesk serve` on real Docker: the HorizontalPodAutoscaler
// as a user meets it. `kubectl autoscale` creates an autoscaling/v2 HorizontalPodAutoscaler; a Deployment whose
// pod burns CPU (request 100m, limit 200m, so ~200% of its request) is scaled up by the controller
// from the metrics.k8s.io figures, and scaled back down to minReplicas once a rollout makes its pods
// idle (with spec.behavior.scaleDown.stabilizationWindowSeconds shortened to a few seconds, as
// upstream's default five minutes would be too long for a test). Events and `kubectl get hpa`
// columns are checked as upstream prints them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, until as poll } from '../support/wait';

let cluster: TestCluster;

// The command reads MODE so that `kubectl set env` both rolls the Deployment out and stops the burn.
const manifest = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: burner }
spec:
  replicas: 1
  selector: { matchLabels: { app: burner } }
  template:
    metadata: { labels: { app: burner } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: burner
          image: ${busyboxImage}
          command: ['sh', '-c', 'if [ "$MODE" = idle ]; then exec sleep 3600; fi; while :; do :; done']
          resources:
            requests: { cpu: 100m, memory: 16Mi }
            limits: { cpu: 200m, memory: 64Mi }
`;

beforeAll(async () => {
  cluster = await startCluster();
  await ok(['apply', '-f', '-'], manifest);
});

afterAll(async () => {
  await cluster?.destroy();
});

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);

// Polls every second; a timed-out wait also prints the autoscaler and the end of the server log.
function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  return poll(what, probe, timeoutMs, 1000, async () => `${(await cluster.kubectl(['get', 'hpa', 'burner', '-o', 'yaml'])).stdout}\n${cluster.logs().slice(-3000)}`);
}

async function desiredReplicas(): Promise<number> {
  return Number(await ok(['get', 'deployment', 'burner', '-o', 'jsonpath={.spec.replicas}']));
}

describe('HorizontalPodAutoscaler', () => {
  it('is created as autoscaling/v2 by kubectl autoscale', async () => {
    const created = await cluster.kubectl(['autoscale', 'deployment', 'burner', '--cpu-percent=50', '--min=1', '--max=3']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toBe('horizontalpodautoscaler.autoscaling/burner autoscaled');
    const hpa = JSON.parse(await ok(['get', 'hpa', 'burner', '-o', 'json'])) as Record<string, unknown>;
    expect(hpa).toMatchObject({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'burner' },
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      },
    });
    await ok(['patch', 'hpa', 'burner', '--type=merge', '-p', '{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":5}}}}']);
    const behavior = JSON.parse(await ok(['get', 'hpa', 'burner', '-o', 'jsonpath={.spec.behavior}'])) as Record<string, unknown>;
    // the server fills the rest of the rules, as upstream's defaulting does
    expect(behavior).toMatchObject({ scaleDown: { stabilizationWindowSeconds: 5, selectPolicy: 'Max' }, scaleUp: { stabilizationWindowSeconds: 0 } });
  });

  it('scales a CPU-burning deployment up', async () => {
    const replicas = await until('the deployment to be scaled up', async () => ((await desiredReplicas()) >= 2 ? desiredReplicas() : undefined), 120_000);
    expect(replicas).toBeGreaterThanOrEqual(2);
    const events = await ok(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,reason=SuccessfulRescale', '-o', 'jsonpath={.items[*].message}']);
    expect(events).toMatch(/New size: [23]; reason: cpu resource utilization \(percentage of request\) above target/);
    const table = await ok(['get', 'hpa', 'burner']);
    expect(table).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\n/);
    expect(table).toMatch(/burner\s+Deployment\/burner\s+cpu: (\d+%|<unknown>)\/50%\s+1\s+3\s+\d\s+/);
    const conditions = await ok(['get', 'hpa', 'burner', '-o', 'jsonpath={range .status.conditions[*]}{.type}={.status} {end}']);
    expect(conditions).toContain('AbleToScale=True');
    expect(conditions).toContain('ScalingActive=True');
  }, 150_000);

  it('scales back down to minReplicas once the pods are idle', async () => {
    await ok(['set', 'env', 'deployment/burner', 'MODE=idle']);
    await until('the deployment to be scaled down to 1', async () => ((await desiredReplicas()) === 1 ? true : undefined), 150_000);
    const events = await ok(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,reason=SuccessfulRescale', '-o', 'jsonpath={.items[*].message}']);
    expect(events).toContain('New size: 1; reason: All metrics below target');
    const described = await ok(['describe', 'hpa', 'burner']);
    expect(described).toMatch(/Reference:\s+Deployment\/burner/);
    expect(described).toContain('SuccessfulRescale');
  }, 180_000);
});
