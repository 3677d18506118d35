// ResourceDef: everything the API server needs to know about one resource kind — discovery
// metadata, defaulting, validation, status rules, table columns and selectable fields. Registry
// modules are pure: they import only shared/ and each other (upstream pkg/registry/<group>/<kind>/strategy.go).
import type { KubeObject } from '../../shared/kubernetes/types';
import type { FieldError } from './fieldErrors';

export type { ColumnDefinition, TableDef } from '../../shared/printers/table';
import type { TableDef } from '../../shared/printers/table';

export interface SubresourceDef {
  /** e.g. `status`, `scale`, `log`, `exec` */
  name: string;
  kind: string;
  group: string;
  version: string;
  verbs: string[];
}

export interface ResourceDef {
  group: string; // '' for core
  version: string;
  /** plural, e.g. `deployments` */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: SubresourceDef[];
  /** true when the kind has a status subresource: main-resource writes keep the old status, /status writes keep the old spec. */
  hasStatus: boolean;
  /** true when metadata.generation increments on changes outside metadata and status. */
  hasGeneration: boolean;
  /** Fill upstream defaults (pkg/apis/<group>/v1/defaults.go). Mutates the object passed. */
  defaults(obj: KubeObject): void;
  /** Upstream ValidateXxx for create. `obj` has defaults applied. */
  validateCreate(obj: KubeObject): FieldError[];
  /** Upstream ValidateXxxUpdate (immutable fields etc.). */
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  /** Strategy hooks before validation (e.g. clearing status on create, computing derived fields). */
  prepareForCreate(obj: KubeObject): void;
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  table: TableDef;
  /** Field-selector values beyond metadata.name / metadata.namespace (upstream ToSelectableFields). */
  selectableFields(obj: KubeObject): Record<string, string>;
}
