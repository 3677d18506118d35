// Event (core/v1), after pkg/registry/core/event/strategy.go: recorders PUT or POST them, a PUT of
// a missing event creates it; selectable by the involved object, reason, source and type.
import type { KubeObject } from '../../../../shared/kubernetes/types';
import { eventTable } from '../../../../shared/printers/events';
import { validateEvent, validateEventUpdate } from '../../validation/core';
import { defineKind, fieldText, valueAt } from '../../strategy';

function eventFields(event: KubeObject): Record<string, string> {
  const involved = (key: string) => fieldText(valueAt(event, 'involvedObject', key));
  return {
    'involvedObject.kind': involved('kind'),
    'involvedObject.namespace': involved('namespace'),
    'involvedObject.name': involved('name'),
    'involvedObject.uid': involved('uid'),
    'involvedObject.apiVersion': involved('apiVersion'),
    'involvedObject.resourceVersion': involved('resourceVersion'),
    'involvedObject.fieldPath': involved('fieldPath'),
    reason: fieldText(event.reason),
    reportingComponent: fieldText(event.reportingComponent),
    source: fieldText(valueAt(event, 'source', 'component')),
    type: fieldText(event.type),
  };
}

export const eventStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  validateCreate: validateEvent,
  validateUpdate: validateEventUpdate,
  allowCreateOnUpdate: true,
  printer: eventTable,
  selectableFields: eventFields,
});
