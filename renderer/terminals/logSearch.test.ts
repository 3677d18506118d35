import { describe, expect, it } from 'vitest';
import { LineStore } from './lineStore';
import { highlightParts, SearchState, searchLines } from './logSearch';

function storeOf(texts: string[], capacity = 100): LineStore {
  const store = new LineStore(capacity);
  for (const text of texts) store.push({ text, source: 0 });
  return store;
}

describe('searchLines', () => {
  it('is case-insensitive unless the query has an upper-case letter', () => {
    const store = storeOf(['Error: boom', 'error again', 'fine']);
    expect(searchLines(store, { text: 'error', timestamps: false })).toEqual([0, 1]);
    expect(searchLines(store, { text: 'Error', timestamps: false })).toEqual([0]);
    expect(searchLines(store, { text: '', timestamps: false })).toEqual([]);
  });

  // its speed is a figure of `node bench/run.mjs ui-models`, not a timed test
  it('finds every match among 100,000 lines, case-insensitively for a lower-case query', () => {
    const store = new LineStore(200_000);
    for (let index = 0; index < 100_000; index++) store.push({ text: `GET /api/items/${index} 200 ${index % 1000 === 0 ? 'SLOW' : 'ok'}`, source: 0 });
    const matches = searchLines(store, { text: 'slow', timestamps: false });
    expect(matches.length).toBe(100);
  });
});

describe('SearchState', () => {
  it('extends its matches as lines arrive and forgets dropped ones', () => {
    const store = storeOf(['a hit', 'miss', 'hit b'], 4);
    const search = new SearchState({ text: 'hit', timestamps: false });
    search.update(store);
    expect(search.matches).toEqual([0, 2]);
    expect(search.currentLine).toBe(0);
    store.push({ text: 'hit c', source: 0 });
    store.push({ text: 'miss', source: 0 });
    search.update(store);
    expect(search.matches).toEqual([2, 3]);
    expect(search.currentLine).toBe(2);
  });

  it('steps through matches in both directions, wrapping around', () => {
    const store = storeOf(['x', 'x', 'x']);
    const search = new SearchState({ text: 'x', timestamps: false });
    search.update(store);
    expect([search.step(1), search.step(1), search.step(1), search.step(-1)]).toEqual([1, 2, 0, 2]);
  });

  it('starts over when the buffer was emptied for a new stream', () => {
    const store = storeOf(['hit', 'hit']);
    const search = new SearchState({ text: 'hit', timestamps: false });
    search.update(store);
    store.clear();
    store.push({ text: 'new hit', source: 0 });
    search.update(store);
    expect(search.matches).toEqual([0]);
  });
});

describe('highlightParts', () => {
  it('splits a line around every match, keeping the line text as it was', () => {
    expect(highlightParts('Foo bar foo', 'foo')).toEqual([
      { text: 'Foo', match: true },
      { text: ' bar ', match: false },
      { text: 'foo', match: true },
    ]);
    expect(highlightParts('abc', '')).toEqual([{ text: 'abc', match: false }]);
  });
});
