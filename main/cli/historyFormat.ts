// What `kubedesk history` prints and writes: the pure parts are shared with the UI
// (shared/history/historyFormat.ts); objects print as YAML the way kubectl prints them.
import { stringify } from 'yaml';

export { changedPaths, changeSummary, diffObject, displayObject, restoreUpdate, undeleteObject, unifiedDiff } from '../../shared/history/historyFormat';

export function toYaml(object: unknown): string {
  return stringify(object, { lineWidth: 0 });
}
