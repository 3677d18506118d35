import { describe, expect, it } from 'vitest';
import { compareTimestamps, displayText, linesOfText, mergeByTimestamp, downloadText, LineSplitter, LineStore, podColor, ReconnectFilter, sinceTimeOf, splitTimestamp, type LogLine } from './lineStore';

const bytes = (value: string) => new TextEncoder().encode(value);
const line = (text: string, source = 0, timestamp?: string): LogLine => ({ text, source, timestamp });

describe('LineSplitter', () => {
  it('carries a partial line to the next frame and strips carriage returns', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(bytes('one\r\ntw'))).toEqual(['one']);
    expect(splitter.push(bytes('o\nthree'))).toEqual(['two']);
    expect(splitter.flush()).toEqual(['three']);
    expect(splitter.flush()).toEqual([]);
  });

  it('keeps a UTF-8 character cut between two frames whole', () => {
    const splitter = new LineSplitter();
    const encoded = bytes('héllo\n');
    expect(splitter.push(encoded.subarray(0, 2))).toEqual([]);
    expect(splitter.push(encoded.subarray(2))).toEqual(['héllo']);
  });

  it('gives empty lines as empty strings', () => {
    expect(new LineSplitter().pushText('a\n\nb\n')).toEqual(['a', '', 'b']);
  });
});

describe('timestamps', () => {
  it.each([
    ['2024-05-01T10:00:00.123456789Z hello world', { timestamp: '2024-05-01T10:00:00.123456789Z', text: 'hello world' }],
    ['2024-05-01T10:00:00Z ', { timestamp: '2024-05-01T10:00:00Z', text: '' }],
    ['no stamp here', { text: 'no stamp here' }],
  ])('splits %j', (input, expected) => {
    expect(splitTimestamp(input)).toEqual(expected);
  });

  it('orders fractions Go trimmed of trailing zeros by time, not by text', () => {
    expect(compareTimestamps('2024-05-01T10:00:00.5Z', '2024-05-01T10:00:00.123Z')).toBe(1);
    expect(compareTimestamps('2024-05-01T10:00:00Z', '2024-05-01T10:00:00.000000001Z')).toBe(-1);
    expect(compareTimestamps('2024-05-01T10:00:00.1Z', '2024-05-01T10:00:00.100Z')).toBe(0);
  });

  it('floors sinceTime to the second the API accepts', () => {
    expect(sinceTimeOf('2024-05-01T10:00:07.987Z')).toBe('2024-05-01T10:00:07Z');
  });
});

describe('ReconnectFilter', () => {
  it('drops what a reconnect with sinceTime repeats, including lines of the same instant already seen', () => {
    const filter = new ReconnectFilter();
    for (const stamp of ['2024-05-01T10:00:05.1Z', '2024-05-01T10:00:07.2Z', '2024-05-01T10:00:07.2Z']) filter.seen(stamp);
    filter.reconnecting();
    const replay = ['2024-05-01T10:00:07.0Z', '2024-05-01T10:00:07.2Z', '2024-05-01T10:00:07.2Z', '2024-05-01T10:00:07.2Z', '2024-05-01T10:00:08Z'];
    expect(replay.map((stamp) => filter.isRepeat(stamp))).toEqual([true, true, true, false, false]);
  });

  it('drops nothing on a first connection', () => {
    const filter = new ReconnectFilter();
    filter.reconnecting();
    expect(filter.isRepeat('2024-05-01T10:00:00Z')).toBe(false);
  });
});

describe('LineStore', () => {
  it('drops the oldest lines once full and keeps absolute line numbers', () => {
    const store = new LineStore(3);
    for (let index = 0; index < 5; index++) store.push(line(`l${index}`));
    expect(store.length).toBe(3);
    expect(store.first).toBe(2);
    expect(store.end).toBe(5);
    expect(store.line(1)).toBeUndefined();
    expect([2, 3, 4].map((absolute) => store.line(absolute)?.text)).toEqual(['l2', 'l3', 'l4']);
    expect([...store.lines()].map((item) => item.text)).toEqual(['l2', 'l3', 'l4']);
  });

  // its speed is a figure of `node bench/run.mjs ui-models`, not a timed test
  it('holds the last 200,000 of 250,000 pushed lines in a 200,000 line ring', () => {
    const store = new LineStore(200_000);
    for (let index = 0; index < 250_000; index++) store.push(line(`line ${index}`));
    expect(store.length).toBe(200_000);
    expect(store.line(store.first)?.text).toBe('line 50000');
    expect(store.line(store.end - 1)?.text).toBe('line 249999');
  });

  it('starts over when cleared', () => {
    const store = new LineStore(2);
    store.push(line('a'));
    store.clear();
    expect([store.length, store.first, store.end]).toEqual([0, 0, 0]);
  });
});

describe('display and download', () => {
  it('prefixes merged lines with their pod and shows timestamps only when asked', () => {
    const entry = line('ready', 1, '2024-05-01T10:00:00Z');
    expect(displayText(entry, { timestamps: false, podNames: ['web-a', 'web-b'] })).toBe('web-b ready');
    expect(displayText(entry, { timestamps: true, podNames: ['web-a'] })).toBe('2024-05-01T10:00:00Z ready');
  });

  it('downloads the lines held, one per line', () => {
    const store = new LineStore(10);
    store.pushAll([line('a'), line('b')]);
    expect(downloadText(store, { timestamps: false })).toBe('a\nb\n');
    expect(downloadText(new LineStore(1), { timestamps: false })).toBe('');
  });

  it('gives a pod the same colour every time and different pods different colours', () => {
    expect(podColor('web-7d9f-abcde')).toBe(podColor('web-7d9f-abcde'));
    expect(new Set(['web-1', 'web-2', 'web-3', 'db-0'].map(podColor)).size).toBe(4);
  });
});

describe('merging pods by time', () => {
  const line = (source: number, text: string, timestamp?: string): LogLine => ({ text, timestamp, source });

  it('interleaves lines of several pods in time order, fractions compared as times', () => {
    const merged = mergeByTimestamp([
      [line(0, 'a1', '2024-05-01T10:00:00.5Z'), line(0, 'a2', '2024-05-01T10:00:02Z')],
      [line(1, 'b1', '2024-05-01T10:00:00.123Z'), line(1, 'b2', '2024-05-01T10:00:01Z')],
      [],
      [line(2, 'c1', '2024-05-01T10:00:03Z')],
    ]);
    expect(merged.map((item) => item.text)).toEqual(['b1', 'a1', 'b2', 'a2', 'c1']);
  });

  it('keeps equal times in pod order and untimed lines after their predecessor', () => {
    const merged = mergeByTimestamp([
      [line(0, 'a1', '2024-05-01T10:00:01Z'), line(0, 'a-continued')],
      [line(1, 'b1', '2024-05-01T10:00:01Z'), line(1, 'b2', '2024-05-01T10:00:02Z')],
    ]);
    expect(merged.map((item) => item.text)).toEqual(['a1', 'a-continued', 'b1', 'b2']);
    expect(mergeByTimestamp([[line(0, 'x')]]).map((item) => item.text)).toEqual(['x']);
  });

  it('splits a log text into timed lines of a source', () => {
    expect(linesOfText('2024-05-01T10:00:01Z one\r\ntwo\n', 3)).toEqual([line(3, 'one', '2024-05-01T10:00:01Z'), line(3, 'two')]);
    expect(linesOfText('', 0)).toEqual([]);
  });
});
