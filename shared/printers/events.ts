// `kubectl get events` tables for core/v1 Event and events.k8s.io/v1 Event. Upstream stores both
// as one internal type and prints them with printers.go printEvent; the events.k8s.io fields
// (regarding, note, deprecated*) are read here as the conversion to that type maps them.
import type { KubeObject } from '../kubernetes/types';
import type { TableDef } from './table';
import { column, nameColumn } from './columns';
import { parseTimestamp, translateTimestampSince } from './duration';
import { hasValue, numberAt, stringAt, valueAt } from './fields';
import { name } from './format';

/** The fields printEvent reads, whatever API version the event was written in. */
interface EventFields {
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  eventTime: unknown;
  count: number;
  involvedObject: unknown;
  source: unknown;
  reportingController: string;
  reportingInstance: string;
  message: string;
}

function coreEventFields(event: KubeObject): EventFields {
  return {
    firstTimestamp: event.firstTimestamp,
    lastTimestamp: event.lastTimestamp,
    eventTime: event.eventTime,
    count: numberAt(event, 'count'),
    involvedObject: event.involvedObject,
    source: event.source,
    reportingController: stringAt(event, 'reportingComponent'),
    reportingInstance: stringAt(event, 'reportingInstance'),
    message: stringAt(event, 'message'),
  };
}

function eventsApiFields(event: KubeObject): EventFields {
  return {
    firstTimestamp: event.deprecatedFirstTimestamp,
    lastTimestamp: event.deprecatedLastTimestamp,
    eventTime: event.eventTime,
    count: numberAt(event, 'deprecatedCount'),
    involvedObject: event.regarding,
    source: event.deprecatedSource,
    reportingController: stringAt(event, 'reportingController'),
    reportingInstance: stringAt(event, 'reportingInstance'),
    message: stringAt(event, 'note'),
  };
}

/** formatEventSource: component (or reporting controller), then `, host` (or reporting instance) when set. */
function eventSource(fields: EventFields): string {
  const component = stringAt(fields.source, 'component') || fields.reportingController;
  const instance = stringAt(fields.source, 'host') || fields.reportingInstance;
  return instance === '' ? component : `${component}, ${instance}`;
}

function eventRow(event: KubeObject, fields: EventFields, now: Date): unknown[] {
  let firstSeen = translateTimestampSince(fields.firstTimestamp, now);
  if (parseTimestamp(fields.firstTimestamp) === undefined) firstSeen = translateTimestampSince(fields.eventTime, now);

  let lastSeen = translateTimestampSince(fields.lastTimestamp, now);
  if (parseTimestamp(fields.lastTimestamp) === undefined) lastSeen = firstSeen;

  let count = fields.count;
  if (hasValue(event, 'series')) {
    lastSeen = translateTimestampSince(valueAt(event, 'series', 'lastObservedTime'), now);
    count = numberAt(event, 'series', 'count');
  } else if (count === 0) {
    // Singleton events written through the new API carry no count.
    count = 1;
  }

  const kind = stringAt(fields.involvedObject, 'kind').toLowerCase();
  const objectName = stringAt(fields.involvedObject, 'name');
  return [
    lastSeen,
    stringAt(event, 'type'),
    stringAt(event, 'reason'),
    objectName === '' ? kind : `${kind}/${objectName}`,
    stringAt(fields.involvedObject, 'fieldPath'),
    eventSource(fields),
    fields.message.trim(),
    firstSeen,
    count,
    name(event),
  ];
}

const eventColumns = [
  column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
  column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
  column('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
  column('Object', 'string', 'The object that this event is about.'),
  column('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].', { priority: 1 }),
  column('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', { priority: 1 }),
  column('Message', 'string', 'A human-readable description of the status of this operation.'),
  column('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', { priority: 1 }),
  column('Count', 'string', 'The number of times this event has occurred.', { priority: 1 }),
  nameColumn({ priority: 1 }),
];

export const eventTable: TableDef = {
  columns: eventColumns,
  row(event, now) {
    return eventRow(event, coreEventFields(event), now);
  },
};

export const eventsApiEventTable: TableDef = {
  columns: eventColumns,
  row(event, now) {
    return eventRow(event, eventsApiFields(event), now);
  },
};
