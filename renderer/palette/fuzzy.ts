// The command palette's matcher: every space-separated word of the query must match the entry's
// precomputed lowercase key — as a whole word, a word prefix, a substring or, weakest, an in-order
// subsequence inside one word (`dpl` → `deployment`) or along word starts (`crb` → `cluster role
// binding`), never letters scattered across words — and the scores add up. Ranking keeps only the best `limit`
// entries in a small sorted buffer, so a keystroke costs one linear pass over the keys and no sort
// of the whole list (5,000+ objects stay instant).

/** The lowercase words of a query; an empty list matches everything. */
export function queryWords(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

// anything but a-z and 0-9 separates words: space, '-', '.', '/', ':'
function isWordCharacter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
}

/** Whether a word starts at `index`. */
function isBoundary(key: string, index: number): boolean {
  return index === 0 || !isWordCharacter(key.charCodeAt(index - 1));
}

/** Score of one lowercase word against a lowercase key; -1 when it does not match. */
export function wordScore(word: string, key: string): number {
  let index = key.indexOf(word);
  if (index >= 0) {
    let best = 0;
    // the first occurrence may be mid-word while a later one starts a word (`po` in `coredns pod`)
    while (index >= 0) {
      const end = index + word.length;
      const startsWord = isBoundary(key, index);
      const endsWord = end === key.length || !isWordCharacter(key.charCodeAt(end));
      const score = startsWord ? (endsWord ? 100 : 80) - (index === 0 ? 0 : 5) : 50;
      if (score > best) best = score;
      if (best >= 95) break;
      index = key.indexOf(word, index + 1);
    }
    return best;
  }
  return subsequenceScore(word, key);
}

/**
 * A loose match, accepted only where a person would see it: the characters in order inside one
 * word of the key (`dpl` → `deployments`), or in runs that each start a word (`crb` → `cluster
 * role binding`). Letters scattered over unrelated words (`helm` → `theme … follow … system`) do
 * not match. Scores 10–40, below any substring.
 */
function subsequenceScore(word: string, key: string): number {
  let best = -1;
  // inside one word of the key
  let start = 0;
  while (start < key.length) {
    while (start < key.length && !isWordCharacter(key.charCodeAt(start))) start++;
    let end = start;
    while (end < key.length && isWordCharacter(key.charCodeAt(end))) end++;
    if (end - start >= word.length) best = Math.max(best, inOrder(word, key, start, end, false));
    start = end;
  }
  // runs that each begin at a word start (an acronym of the key's words)
  return Math.max(best, inOrder(word, key, 0, key.length, true));
}

/** Scores the characters of `word` found in order in key[start, end); -1 when they are not. */
function inOrder(word: string, key: string, start: number, end: number, runsStartWords: boolean): number {
  let score = 0;
  let position = start;
  let previous = -2;
  for (let character = 0; character < word.length; character++) {
    let found = key.indexOf(word[character], position);
    // in acronym mode a character either continues the run or starts a new word
    if (runsStartWords) while (found >= 0 && found < end && found !== previous + 1 && !isBoundary(key, found)) found = key.indexOf(word[character], found + 1);
    if (found < 0 || found >= end) return -1;
    score += found === previous + 1 ? 3 : isBoundary(key, found) ? 2 : 0;
    previous = found;
    position = found + 1;
  }
  return 10 + Math.min(score, 30);
}

/** Score of a query (its words) against a key; -1 when any word misses. Shorter keys win ties. */
export function fuzzyScore(words: string[], key: string): number {
  let total = 0;
  for (const word of words) {
    const score = wordScore(word, key);
    if (score < 0) return -1;
    total += score;
  }
  return total - key.length / 1000;
}

export interface Scored<T> {
  item: T;
  score: number;
}

/**
 * The best `limit` items for the query, best first (ties keep input order). `keyOf` must return a
 * precomputed lowercase string; `boost` adds a per-item weight (e.g. navigation above objects).
 */
export function rank<T>(items: readonly T[], query: string, keyOf: (item: T) => string, limit: number, boost?: (item: T) => number): Scored<T>[] {
  const words = queryWords(query);
  const best: Scored<T>[] = [];
  for (const item of items) {
    const matched = words.length === 0 ? 0 : fuzzyScore(words, keyOf(item));
    if (matched < 0) continue;
    const score = matched + (boost ? boost(item) : 0);
    if (best.length === limit && score <= best[best.length - 1].score) continue;
    let index = best.length;
    while (index > 0 && best[index - 1].score < score) index--;
    best.splice(index, 0, { item, score });
    if (best.length > limit) best.pop();
  }
  return best;
}
