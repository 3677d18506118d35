// The shape of a `kubectl get` table: metav1.TableColumnDefinition and a row function per kind.
// Shared by the API server (Table responses) and the web UI (list columns), so both print alike.
import type { KubeObject } from '../kubernetes/types';

/** metav1.TableColumnDefinition */
export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

/** How a kind prints in `kubectl get`: the column set of upstream printers.go and a row function. */
export interface TableDef {
  columns: ColumnDefinition[];
  /** Cells in column order. `now` is injected so rows are testable (Age columns). */
  row(obj: KubeObject, now: Date): unknown[];
}
