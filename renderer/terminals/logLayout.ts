// Virtual scrolling of the log viewer: how many screen rows each line takes (one, or with wrapping
// its length over the characters that fit a row — the viewer uses a monospace font, so this is an
// estimate that only tabs and wide characters upset) and which lines a scroll position shows. The
// row offsets are prefix sums, found by binary search, so only the visible lines are rendered.

export function wrappedRows(length: number, columns: number | undefined): number {
  if (columns === undefined || columns <= 0) return 1;
  return Math.max(1, Math.ceil(length / columns));
}

/** offsets[i] = first row of line i (relative to the oldest line held); offsets[count] = all rows. */
export function buildRowOffsets(count: number, lengthOf: (index: number) => number, columns: number | undefined): Int32Array {
  const offsets = new Int32Array(count + 1);
  for (let index = 0; index < count; index++) offsets[index + 1] = offsets[index] + (columns === undefined ? 1 : wrappedRows(lengthOf(index), columns));
  return offsets;
}

/** The line covering `row` (0 when empty); rows past the end give the last line. */
export function lineAtRow(offsets: Int32Array, row: number): number {
  const count = offsets.length - 1;
  if (count <= 0) return 0;
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (offsets[middle] <= row) low = middle;
    else high = middle - 1;
  }
  return low;
}

export interface VisibleRange {
  /** first and past-last line (relative index) */
  start: number;
  end: number;
}

/** Lines intersecting [scrollTop, scrollTop + height), with `overscan` extra lines either side. */
export function visibleLines(offsets: Int32Array, rowHeight: number, scrollTop: number, height: number, overscan = 10): VisibleRange {
  const count = offsets.length - 1;
  if (count <= 0) return { start: 0, end: 0 };
  const first = lineAtRow(offsets, Math.floor(Math.max(0, scrollTop) / rowHeight));
  const last = lineAtRow(offsets, Math.floor((Math.max(0, scrollTop) + height) / rowHeight));
  return { start: Math.max(0, first - overscan), end: Math.min(count, last + 1 + overscan) };
}

/** Close enough to the bottom to keep following (a pixel of rounding must not pause follow). */
export function isAtBottom(scrollTop: number, clientHeight: number, scrollHeight: number): boolean {
  return scrollHeight - (scrollTop + clientHeight) <= 4;
}
