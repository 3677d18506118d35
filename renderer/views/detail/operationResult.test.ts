import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../api/kubeClient';
import { resultOfError } from './operationResult';

describe('results of failed calls', () => {
  it('marks a server-side apply conflict and lists the managers and fields', () => {
    const error = new KubeApiError(409, 'Conflict', 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas', [{ type: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }]);
    expect(resultOfError(error)).toMatchObject({ tone: 'error', conflict: true, lines: ['.spec.replicas: conflict with "kubectl-client-side-apply" using apps/v1'] });
  });

  it('shows Invalid errors with their field paths, without offering force', () => {
    const error = new KubeApiError(422, 'Invalid', 'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1', [{ type: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' }]);
    const result = resultOfError(error);
    expect(result.conflict).toBeUndefined();
    expect(result.title).toBe('Invalid: Deployment.apps "web" is invalid');
    expect(result.lines).toEqual(['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
  });

  it('treats a 409 without field causes (a stale resourceVersion) as a plain error', () => {
    expect(resultOfError(new KubeApiError(409, 'Conflict', 'the object has been modified')).conflict).toBeUndefined();
  });

  it('passes other errors through', () => {
    expect(resultOfError(new Error('network down'))).toEqual({ tone: 'error', title: 'network down', lines: [] });
  });
});
