// Event (events.k8s.io/v1), after pkg/registry/core/event/strategy.go serving the events API
// group: the same events as core/v1 in the newer shape (regarding, note, reportingController); a
// PUT of a missing event creates it; selectable by the regarding object, reason and type.
import type { KubeObject } from '../../../../shared/kubernetes/types';
import { eventsApiEventTable } from '../../../../shared/printers/events';
import { validateEventsV1Event, validateEventsV1EventUpdate } from '../../validation/misc';
import { defineKind, fieldText, valueAt } from '../../strategy';

function eventFields(event: KubeObject): Record<string, string> {
  const regarding = (key: string) => fieldText(valueAt(event, 'regarding', key));
  return {
    'regarding.kind': regarding('kind'),
    'regarding.namespace': regarding('namespace'),
    'regarding.name': regarding('name'),
    'regarding.uid': regarding('uid'),
    'regarding.apiVersion': regarding('apiVersion'),
    'regarding.resourceVersion': regarding('resourceVersion'),
    'regarding.fieldPath': regarding('fieldPath'),
    reason: fieldText(event.reason),
    reportingController: fieldText(event.reportingController),
    type: fieldText(event.type),
  };
}

export const eventsV1EventStrategy = defineKind({
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  validateCreate: validateEventsV1Event,
  validateUpdate: validateEventsV1EventUpdate,
  allowCreateOnUpdate: true,
  printer: eventsApiEventTable,
  selectableFields: eventFields,
});
