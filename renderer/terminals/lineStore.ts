// The log viewer's data: bytes of `GET pods/log` split into lines (partial lines carried across
// frames, as the stream is cut wherever the kubelet's reads end), the RFC3339Nano timestamp the
// kubelet prefixes with timestamps=true split off, and a bounded ring of lines that drops the
// oldest once full, so following a chatty pod keeps memory flat. Pure, no DOM.

export interface LogLine {
  text: string;
  /** RFC3339Nano, when the stream carried timestamps */
  timestamp?: string;
  /** index into the viewer's list of pods (merged logs) */
  source: number;
}

/** Splits a byte stream into lines; UTF-8 sequences and lines cut between frames are carried. */
export class LineSplitter {
  private decoder = new TextDecoder();
  private partial = '';

  push(bytes: Uint8Array): string[] {
    return this.split(this.decoder.decode(bytes, { stream: true }));
  }

  pushText(text: string): string[] {
    return this.split(text);
  }

  /** The stream ended: whatever is left is a last line without its newline. */
  flush(): string[] {
    const rest = this.partial + this.decoder.decode();
    this.partial = '';
    this.decoder = new TextDecoder();
    return rest === '' ? [] : [stripCarriageReturn(rest)];
  }

  private split(text: string): string[] {
    if (text === '') return [];
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    return parts.map(stripCarriageReturn);
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})) /;

/** `2024-05-01T10:00:00.123456789Z message` → timestamp and message (the kubelet's timestamps=true format). */
export function splitTimestamp(line: string): { timestamp?: string; text: string } {
  const match = TIMESTAMP.exec(line);
  if (!match) return { text: line };
  return { timestamp: match[1], text: line.slice(match[0].length) };
}

/**
 * Orders two RFC3339Nano UTC timestamps. Go trims trailing zeros of the fraction, so plain string
 * comparison is wrong (`…:00.5Z` > `…:00.123Z` as strings but not as times); fractions are padded.
 */
export function compareTimestamps(left: string, right: string): number {
  const a = timestampKey(left);
  const b = timestampKey(right);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A timestamp as text that sorts in time order: the fraction padded to nine digits. */
export function timestampKey(value: string): string {
  const match = /^([^.Z+]+?)(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(value);
  if (!match) return value;
  return `${match[1]}.${(match[2] ?? '').padEnd(9, '0').slice(0, 9)}`;
}

/**
 * Merges the lines of several pods, each already in time order, into one in time order (a k-way
 * merge; equal times keep the pods' order). A line without a timestamp stays right after the line
 * before it from the same pod.
 */
export function mergeByTimestamp(groups: readonly (readonly LogLine[])[]): LogLine[] {
  const nonEmpty = groups.filter((group) => group.length > 0);
  if (nonEmpty.length <= 1) return nonEmpty[0] ? [...nonEmpty[0]] : [];
  const keys = nonEmpty.map((group) => {
    let last = '';
    return group.map((line) => (line.timestamp ? (last = timestampKey(line.timestamp)) : last));
  });
  const positions = nonEmpty.map(() => 0);
  const total = nonEmpty.reduce((sum, group) => sum + group.length, 0);
  const merged: LogLine[] = new Array(total);
  for (let out = 0; out < total; out++) {
    let best = -1;
    for (let group = 0; group < nonEmpty.length; group++) {
      if (positions[group] >= nonEmpty[group].length) continue;
      if (best === -1 || keys[group][positions[group]] < keys[best][positions[best]]) best = group;
    }
    merged[out] = nonEmpty[best][positions[best]++];
  }
  return merged;
}

/** Lines of one pod's log text (`timestamps=true`), split and tagged with the pod's source index. */
export function linesOfText(text: string, source: number): LogLine[] {
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((part) => {
    const { timestamp, text: message } = splitTimestamp(part.endsWith('\r') ? part.slice(0, -1) : part);
    return { text: message, timestamp, source };
  });
}

/** sinceTime for a reconnect: the API takes RFC3339 with whole seconds, so the second is floored. */
export function sinceTimeOf(timestamp: string): string {
  return timestamp.replace(/\.\d+/, '');
}

/**
 * Drops the lines a reconnect with sinceTime sends again: everything before the last line seen,
 * and as many lines of that very timestamp as were seen already.
 */
export class ReconnectFilter {
  private last: string | undefined;
  private seenAtLast = 0;
  private skipping = false;
  private skipLeft = 0;

  /** Call for every line kept; remembers where the stream got to. */
  seen(timestamp: string | undefined): void {
    if (timestamp === undefined) return;
    if (this.last !== undefined && compareTimestamps(timestamp, this.last) === 0) this.seenAtLast++;
    else {
      this.last = timestamp;
      this.seenAtLast = 1;
    }
  }

  get lastTimestamp(): string | undefined {
    return this.last;
  }

  /** A new connection starts: its first lines may repeat what was seen. */
  reconnecting(): void {
    this.skipping = this.last !== undefined;
    this.skipLeft = this.seenAtLast;
  }

  /** Whether a line of the new connection is a repeat. */
  isRepeat(timestamp: string | undefined): boolean {
    if (!this.skipping || timestamp === undefined || this.last === undefined) return false;
    const order = compareTimestamps(timestamp, this.last);
    if (order < 0) return true;
    if (order === 0 && this.skipLeft > 0) {
      this.skipLeft--;
      return true;
    }
    this.skipping = false;
    return false;
  }
}

/**
 * A ring of at most `capacity` lines. Lines have absolute numbers (0 = the first line ever pushed)
 * so search results and the scroll position survive the oldest lines being dropped.
 */
export class LineStore {
  private buffer: LogLine[] = [];
  private start = 0;
  private total = 0;

  constructor(readonly capacity = 200_000) {}

  push(line: LogLine): void {
    if (this.buffer.length < this.capacity) {
      this.buffer.push(line);
    } else {
      this.buffer[this.start] = line;
      this.start = (this.start + 1) % this.capacity;
    }
    this.total++;
  }

  pushAll(lines: readonly LogLine[]): void {
    for (const line of lines) this.push(line);
  }

  /** lines held now */
  get length(): number {
    return this.buffer.length;
  }

  /** absolute number of the oldest line held (= how many were dropped) */
  get first(): number {
    return this.total - this.buffer.length;
  }

  /** absolute number after the newest line */
  get end(): number {
    return this.total;
  }

  /** A line by absolute number; undefined when dropped or not yet pushed. */
  line(absolute: number): LogLine | undefined {
    const offset = absolute - this.first;
    if (offset < 0 || offset >= this.buffer.length) return undefined;
    return this.buffer[(this.start + offset) % this.buffer.length];
  }

  clear(): void {
    this.buffer = [];
    this.start = 0;
    this.total = 0;
  }

  /** Oldest first. */
  *lines(): IterableIterator<LogLine> {
    for (let offset = 0; offset < this.buffer.length; offset++) yield this.buffer[(this.start + offset) % this.buffer.length];
  }
}

/** The text a line shows (and is searched and downloaded as). */
export function displayText(line: LogLine, options: { timestamps: boolean; podNames?: readonly string[] }): string {
  const prefix = options.podNames && options.podNames.length > 1 ? `${options.podNames[line.source] ?? ''} ` : '';
  const stamp = options.timestamps && line.timestamp ? `${line.timestamp} ` : '';
  return `${prefix}${stamp}${line.text}`;
}

/** A stable colour per pod name (same name, same hue in every tab and session). */
export function podColor(name: string): string {
  let hash = 0;
  for (let index = 0; index < name.length; index++) hash = (Math.imul(hash, 31) + name.charCodeAt(index)) | 0;
  const hue = ((hash % 360) + 360) % 360;
  return `hsl(${hue} 65% 55%)`;
}

/** The whole buffer as a file's text. */
export function downloadText(store: LineStore, options: { timestamps: boolean; podNames?: readonly string[] }): string {
  const parts: string[] = [];
  for (const line of store.lines()) parts.push(displayText(line, options));
  return parts.length ? `${parts.join('\n')}\n` : '';
}
