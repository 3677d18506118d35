import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { builtinKinds } from '../kinds';
import { qualifiedResource } from '../resources';

/** The strategies of the stored built-in kinds, by group-qualified resource (`pods`, `deployments.apps`). */
const kinds = Object.fromEntries(builtinKinds.filter((kind) => !kind.conversion).map((kind) => [qualifiedResource(kind), kind]));

/** A small deterministic PRNG so failures reproduce. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const keys = [
  'name', 'namespace', 'spec', 'containers', 'image', 'ports', 'containerPort', 'protocol', 'env', 'valueFrom', 'volumes',
  'volumeMounts', 'resources', 'limits', 'requests', 'selector', 'matchLabels', 'matchExpressions', 'template', 'metadata',
  'labels', 'annotations', 'replicas', 'strategy', 'rollingUpdate', 'maxSurge', 'data', 'type', 'schedule', 'jobTemplate',
  'clusterIP', 'clusterIPs', 'targetPort', 'subsets', 'addresses', 'endpoints', 'tolerations', 'livenessProbe', 'httpGet',
  'restartPolicy', 'initContainers', 'updateStrategy', 'finalizers', 'ownerReferences', 'taints', 'limits', 'hard', 'timeZone',
];

function value(next: () => number, depth: number): unknown {
  const choice = Math.floor(next() * (depth > 3 ? 6 : 9));
  switch (choice) {
    case 0: return null;
    case 1: return Math.floor(next() * 200000) - 100000;
    case 2: return next() > 0.5;
    case 3: return ['', 'x', 'Bad_Name', '10.0.0.1', '1Gi', '-1', '25%', '@hourly', 'None', 'TCP'][Math.floor(next() * 10)];
    case 4: return next() * 10;
    case 5: return 'A'.repeat(Math.floor(next() * 300));
    case 6:
    case 7: {
      const record: Record<string, unknown> = {};
      const count = Math.floor(next() * 5);
      for (let index = 0; index < count; index++) record[keys[Math.floor(next() * keys.length)]] = value(next, depth + 1);
      return record;
    }
    default: return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  }
}

describe('validators and defaulters on mistyped input', () => {
  it('never throw on 300 random objects for any kind', () => {
    const next = random(42);
    const failures: string[] = [];
    for (let round = 0; round < 300; round++) {
      for (const resource of Object.keys(kinds)) {
        const body = value(next, 0);
        const object = { ...(typeof body === 'object' && body !== null && !Array.isArray(body) ? body : { spec: body }), metadata: value(next, 1) } as KubeObject;
        const old = { spec: value(next, 0), metadata: value(next, 1) } as KubeObject;
        try {
          kinds[resource].defaults(object);
          kinds[resource].prepareForCreate(object);
        } catch (error) {
          failures.push(`${resource} round ${round}: defaults threw ${String(error)}`);
        }
        const errors = [...kinds[resource].validateCreate(object), ...kinds[resource].validateUpdate(object, old)];
        for (const error of errors) {
          if (typeof error.field !== 'string' || typeof error.detail !== 'string' || error.detail.includes('internal validation error')) {
            failures.push(`${resource} round ${round}: ${error.field}: ${error.detail}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
