// Search in the log viewer: which lines contain the query (case-insensitive unless it has an upper
// case letter, as `less` and most editors' smart case do), and where in a line the matches are for
// highlighting. One pass of indexOf over the lines, extended incrementally as lines arrive, so
// searching 100,000 lines stays well under a frame's worth of work per keystroke. Pure.
import { displayText, type LineStore } from './lineStore';

export interface SearchQuery {
  text: string;
  timestamps: boolean;
  podNames?: readonly string[];
}

export function isCaseSensitive(text: string): boolean {
  return text !== text.toLowerCase();
}

/** Absolute numbers of the lines in [from, store.end) that contain the query. */
export function searchLines(store: LineStore, query: SearchQuery, from = store.first): number[] {
  const matches: number[] = [];
  if (query.text === '') return matches;
  const sensitive = isCaseSensitive(query.text);
  const needle = sensitive ? query.text : query.text.toLowerCase();
  const options = { timestamps: query.timestamps, podNames: query.podNames };
  for (let absolute = Math.max(from, store.first); absolute < store.end; absolute++) {
    const line = store.line(absolute);
    if (!line) continue;
    const text = displayText(line, options);
    if ((sensitive ? text : text.toLowerCase()).includes(needle)) matches.push(absolute);
  }
  return matches;
}

/** Search results kept up to date as lines arrive and old ones are dropped. */
export class SearchState {
  matches: number[] = [];
  /** index into matches of the current one, -1 when none */
  current = -1;
  private searchedTo = 0;

  constructor(readonly query: SearchQuery) {}

  /** Extends the results to the lines pushed since the last call and forgets dropped ones. */
  update(store: LineStore): void {
    if (store.end < this.searchedTo) {
      // the buffer was emptied (a new stream): start over
      this.matches = [];
      this.current = -1;
      this.searchedTo = 0;
    }
    const first = store.first;
    if (this.matches.length > 0 && this.matches[0] < first) {
      const kept = this.matches.findIndex((absolute) => absolute >= first);
      const removed = kept === -1 ? this.matches.length : kept;
      this.matches = this.matches.slice(removed);
      this.current = this.matches.length === 0 ? -1 : Math.max(0, this.current - removed);
    }
    const added = searchLines(store, this.query, Math.max(this.searchedTo, first));
    if (added.length > 0) this.matches = this.matches.concat(added);
    this.searchedTo = store.end;
    if (this.current === -1 && this.matches.length > 0) this.current = 0;
  }

  /** Moves to the next (1) or previous (-1) match, wrapping; returns its line number. */
  step(direction: 1 | -1): number | undefined {
    if (this.matches.length === 0) return undefined;
    this.current = (this.current + direction + this.matches.length) % this.matches.length;
    return this.matches[this.current];
  }

  /** The current match's line, if any. */
  get currentLine(): number | undefined {
    return this.current >= 0 ? this.matches[this.current] : undefined;
  }
}

/** Pieces of a line's text, `match` set on the parts equal to the query (for <mark>). */
export function highlightParts(text: string, query: string): Array<{ text: string; match: boolean }> {
  if (query === '') return [{ text, match: false }];
  const sensitive = isCaseSensitive(query);
  const haystack = sensitive ? text : text.toLowerCase();
  const needle = sensitive ? query : query.toLowerCase();
  const parts: Array<{ text: string; match: boolean }> = [];
  let position = 0;
  for (let found = haystack.indexOf(needle); found !== -1; found = haystack.indexOf(needle, found + needle.length)) {
    if (found > position) parts.push({ text: text.slice(position, found), match: false });
    parts.push({ text: text.slice(found, found + needle.length), match: true });
    position = found + needle.length;
  }
  if (position < text.length) parts.push({ text: text.slice(position), match: false });
  return parts;
}
