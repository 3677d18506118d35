// The one map of scheduler plugins, in upstream's default order and with upstream's default score
// weights (pkg/scheduler/apis/config/v1/default_plugins.go). Filters run in this order and a node
// is rejected by the first plugin that fails, so the order decides which reason a node reports.
import type { Plugin } from './framework';
import { InterPodAffinity } from './plugins/interPodAffinity';
import { NodeAffinity } from './plugins/nodeAffinity';
import { NodeName } from './plugins/nodeName';
import { NodePorts } from './plugins/nodePorts';
import { NodeResourcesBalancedAllocation } from './plugins/nodeResourcesBalancedAllocation';
import { NodeResourcesFit } from './plugins/nodeResourcesFit';
import { NodeUnschedulable } from './plugins/nodeUnschedulable';
import { PodTopologySpread } from './plugins/podTopologySpread';
import { TaintToleration } from './plugins/taintToleration';

export interface PluginRegistration {
  create(): Plugin;
  /** Multiplies the plugin's normalised score; 0 for plugins that do not score. */
  weight: number;
}

export interface WeightedPlugin {
  plugin: Plugin;
  weight: number;
}

export const pluginRegistry: ReadonlyMap<string, PluginRegistration> = new Map<string, PluginRegistration>([
  ['NodeUnschedulable', { create: () => new NodeUnschedulable(), weight: 0 }],
  ['NodeName', { create: () => new NodeName(), weight: 0 }],
  ['TaintToleration', { create: () => new TaintToleration(), weight: 3 }],
  ['NodeAffinity', { create: () => new NodeAffinity(), weight: 2 }],
  ['NodePorts', { create: () => new NodePorts(), weight: 0 }],
  ['NodeResourcesFit', { create: () => new NodeResourcesFit(), weight: 1 }],
  ['PodTopologySpread', { create: () => new PodTopologySpread(), weight: 2 }],
  ['InterPodAffinity', { create: () => new InterPodAffinity(), weight: 2 }],
  ['NodeResourcesBalancedAllocation', { create: () => new NodeResourcesBalancedAllocation(), weight: 1 }],
]);

/** Instances of the registered plugins (all, or the named ones), in registry order. */
export function createPlugins(names?: readonly string[]): WeightedPlugin[] {
  const result: WeightedPlugin[] = [];
  for (const [name, registration] of pluginRegistry) {
    if (names && !names.includes(name)) continue;
    result.push({ plugin: registration.create(), weight: registration.weight });
  }
  return result;
}
