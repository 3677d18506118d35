import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { admitPodPriority, admitPriorityClass } from './priorityAdmission';

const classes: KubeObject[] = [
  { metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' },
  { metadata: { name: 'standard' }, value: 10, globalDefault: true },
];
const lookup = (name: string) => classes.find((candidate) => candidate.metadata.name === name);

/** A pod as it reaches admission: defaulted, with priority and preemptionPolicy only when the client sent them. */
function pod(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'busybox' }], ...spec } };
}

function failure(run: () => void): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return `${error.code} ${error.message}`;
  }
  return 'no error';
}

describe('admitPodPriority', () => {
  it('resolves the priority and preemption policy of the named class', () => {
    const object = pod({ priorityClassName: 'high', priority: undefined });
    admitPodPriority(object, lookup, () => classes);
    expect(object.spec).toMatchObject({ priority: 1000, preemptionPolicy: 'Never', priorityClassName: 'high' });
  });

  it('gives a pod without a class the global default', () => {
    const object = pod({});
    admitPodPriority(object, lookup, () => classes);
    expect(object.spec).toMatchObject({ priority: 10, priorityClassName: 'standard' });
  });

  it('gives priority 0 and PreemptLowerPriority when no class is the default', () => {
    const object = pod({});
    admitPodPriority(object, lookup, () => []);
    expect(object.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(object.spec).not.toHaveProperty('priorityClassName');
  });

  it('accepts an explicit priority and preemption policy that agree with the class', () => {
    const object = pod({ priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' });
    admitPodPriority(object, lookup, () => classes);
    expect(object.spec).toMatchObject({ priority: 1000, preemptionPolicy: 'Never' });
    const zero = pod({ priority: 0 });
    admitPodPriority(zero, lookup, () => []);
    expect(zero.spec).toMatchObject({ priority: 0 });
  });

  it.each([
    { name: 'an unknown class', spec: { priorityClassName: 'nope', priority: undefined }, message: '403 pods "web" is forbidden: no PriorityClass with name nope was found' },
    { name: 'a priority that disagrees with the class', spec: { priorityClassName: 'high', priority: 5 }, message: '403 pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name' },
    { name: 'an explicit priority 0 under a class', spec: { priorityClassName: 'high', priority: 0 }, message: '403 pods "web" is forbidden: the integer value of priority (0) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name' },
    { name: 'an explicit priority 0 that disagrees with the global default', spec: { priority: 0 }, message: '403 pods "web" is forbidden: the integer value of priority (0) must not be provided in pod spec; priority admission controller computed 10 from the given PriorityClass name' },
    { name: 'a preemption policy that disagrees with the class', spec: { priorityClassName: 'high', preemptionPolicy: 'PreemptLowerPriority' }, message: '403 pods "web" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name' },
  ])('refuses $name', ({ spec, message }) => {
    expect(failure(() => admitPodPriority(pod(spec), lookup, () => classes))).toBe(message);
  });
});

describe('admitPriorityClass', () => {
  it('allows only one global default', () => {
    expect(failure(() => admitPriorityClass({ metadata: { name: 'other' }, value: 1, globalDefault: true }, () => classes))).toBe(
      '403 priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass standard is already marked as default. Only one default can exist',
    );
    expect(failure(() => admitPriorityClass({ metadata: { name: 'standard' }, value: 10, globalDefault: true }, () => classes))).toBe('no error');
  });
});
