import { describe, expect, it } from 'vitest';
import { builtinKinds } from '../../kinds';
import { customKindOf } from '../../kinds/customKinds';
import { planApply, splitDocuments } from './createModel';
import { hasOwnTemplate, templateFor } from './templates';

describe('Create templates', () => {
  for (const config of builtinKinds) {
    it(`gives ${config.kind} a template that parses and plans as a ${config.kind}`, () => {
      const documents = splitDocuments(templateFor(config, 'shop'));
      expect(documents).toHaveLength(1);
      expect(documents[0].problems).toEqual([]);
      const plan = planApply(documents[0].object ?? {}, builtinKinds, 'default');
      expect(plan.ok && plan.plan.config.key).toBe(config.key);
      if (plan.ok) expect(plan.plan.namespace).toBe(config.namespaced ? 'shop' : undefined);
      expect(hasOwnTemplate(config)).toBe(true);
    });
  }

  it('gives a custom kind its apiVersion, kind and an empty spec', () => {
    const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true }] }, status: { conditions: [{ type: 'Established', status: 'True' }] } };
    const widget = customKindOf(crd);
    expect(widget).toBeDefined();
    if (!widget) return;
    expect(templateFor(widget, 'default')).toBe('apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: new-widget\n  namespace: default\nspec: {}\n');
  });
});
