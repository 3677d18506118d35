// The CPU and Memory columns of the pod and workload lists: a header each and, per visible row, a
// sparkline cell (the list is virtualised, so only rows on screen mount cells and ask for data).
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { KindConfig } from '../../kinds/kindConfig';
import { PodSparkline, WorkloadSparkline } from './UsageCharts';

const RESOURCES = [
  { resource: 'cpu', title: 'CPU', description: 'CPU used over the last 10 minutes (the figure: the latest, in millicores); scaled to the limit when there is one' },
  { resource: 'memory', title: 'Memory', description: 'Memory working set over the last 10 minutes; scaled to the limit when there is one' },
] as const;

/** The grid widths the usage columns add (none for kinds without them). */
export function usageColumnTemplate(config: KindConfig | undefined): string[] {
  return config ? ['128px', '128px'] : [];
}

export function UsageHeaders({ config }: { config: KindConfig | undefined }) {
  if (!config) return null;
  return (
    <>
      {RESOURCES.map(({ resource, title, description }) => (
        <div key={resource} role="columnheader" className="cell head" title={description} data-testid={`column-usage-${resource}`}>
          {title}
        </div>
      ))}
    </>
  );
}

export function UsageCells({ config, object }: { config: KindConfig; object: KubeObject }) {
  const namespace = object.metadata.namespace ?? '';
  const name = object.metadata.name ?? '';
  return (
    <>
      {RESOURCES.map(({ resource }) => (
        <div key={resource} role="gridcell" className="cell usage-cell" data-testid={`usage-${resource}`}>
          {config.usage === 'pod' ? <PodSparkline namespace={namespace} name={name} resource={resource} /> : <WorkloadSparkline namespace={namespace} name={name} selector={config.podSelector?.(object)} resource={resource} />}
        </div>
      ))}
    </>
  );
}
