// The registry's types for the API server: a served kind is a KindStrategy (strategy.ts); table
// columns come from shared/printers, which the web UI shares.
export type { KindStrategy, Subresource, GroupVersionKind } from './strategy';
export type { ColumnDefinition, TableDef } from '../../shared/printers/table';
