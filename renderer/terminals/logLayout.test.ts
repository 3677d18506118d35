import { describe, expect, it } from 'vitest';
import { buildRowOffsets, isAtBottom, lineAtRow, visibleLines, wrappedRows } from './logLayout';

describe('log layout', () => {
  it.each([
    [0, 80, 1],
    [80, 80, 1],
    [81, 80, 2],
    [500, undefined, 1],
  ])('a line of %i characters in %s columns takes %i rows', (length, columns, rows) => {
    expect(wrappedRows(length, columns)).toBe(rows);
  });

  it('finds the line at a row with wrapped lines of different heights', () => {
    const lengths = [10, 250, 10, 90];
    const offsets = buildRowOffsets(lengths.length, (index) => lengths[index], 100);
    expect([...offsets]).toEqual([0, 1, 4, 5, 6]);
    expect([0, 1, 3, 4, 5, 99].map((row) => lineAtRow(offsets, row))).toEqual([0, 1, 1, 2, 3, 3]);
  });

  it('renders only the lines on screen plus an overscan', () => {
    const offsets = buildRowOffsets(100_000, () => 10, undefined);
    expect(visibleLines(offsets, 18, 18 * 50_000, 180, 5)).toEqual({ start: 49_995, end: 50_016 });
    expect(visibleLines(buildRowOffsets(0, () => 0, undefined), 18, 0, 180)).toEqual({ start: 0, end: 0 });
  });

  it('counts a view within a few pixels of the end as at the bottom', () => {
    expect(isAtBottom(597, 100, 700)).toBe(true);
    expect(isAtBottom(500, 100, 700)).toBe(false);
  });
});
