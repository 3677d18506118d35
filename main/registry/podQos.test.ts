import { describe, it, expect } from 'vitest';
import { podQosClass } from './podQos';

describe('podQosClass', () => {
  it.each([
    ['a pod without resources is BestEffort', { containers: [{ name: 'a' }] }, 'BestEffort'],
    ['equal requests and limits are Guaranteed', { containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } }] }, 'Guaranteed'],
    ['limits alone are Guaranteed (requests default to limits)', { containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' } } }] }, 'Guaranteed'],
    ['requests alone are Burstable', { containers: [{ name: 'a', resources: { requests: { cpu: '100m' } } }] }, 'Burstable'],
    ['a missing memory limit is Burstable', { containers: [{ name: 'a', resources: { limits: { cpu: '1' } } }] }, 'Burstable'],
  ])('%s', (_name, spec, expected) => {
    expect(podQosClass(spec)).toBe(expected);
  });
});
