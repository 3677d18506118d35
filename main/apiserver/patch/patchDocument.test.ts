import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { PatchError } from './patchError';
import { applyPatchDocument, asClientError } from './patchDocument';

const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { keep: 'yes' } }, data: { color: 'blue' } };

describe('applyPatchDocument', () => {
  it('applies JSON, merge and strategic patches by Content-Type', () => {
    expect(applyPatchDocument('application/json-patch+json', configMap, [{ op: 'replace', path: '/data/color', value: 'green' }], 'v1', 'ConfigMap')).toMatchObject({ data: { color: 'green' } });
    expect(applyPatchDocument('application/merge-patch+json', configMap, { data: { size: '3' } }, 'v1', 'ConfigMap')).toMatchObject({ data: { color: 'blue', size: '3' } });
    expect(applyPatchDocument('application/strategic-merge-patch+json', configMap, { metadata: { labels: { added: 'x' } } }, 'v1', 'ConfigMap')).toMatchObject({ metadata: { labels: { keep: 'yes', added: 'x' } } });
  });

  it('refuses other Content-Types with 415', () => {
    expect(() => applyPatchDocument('application/apply-patch+yaml', configMap, {}, 'v1', 'ConfigMap')).toThrow(expect.objectContaining({ code: 415 }));
  });
});

describe('asClientError', () => {
  it("answers a patch failure upstream leaves unclassified (500) with 400 and the failure's text", () => {
    let thrown: unknown;
    try {
      asClientError(() => {
        throw PatchError.unclassified('merging lists cannot yet be specified in the patch');
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect((thrown as ApiError).message).toContain('merging lists cannot yet be specified');
  });

  it('passes classified errors and results through', () => {
    expect(() => asClientError(() => { throw PatchError.malformed('bad'); })).toThrow(expect.objectContaining({ code: 400 }));
    expect(asClientError(() => 7)).toBe(7);
  });
});
