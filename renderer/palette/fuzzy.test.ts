// Tests of the palette's fuzzy matcher and ranking.
import { describe, expect, it } from 'vitest';
import { fuzzyScore, queryWords, rank, wordScore } from './fuzzy';

describe('wordScore', () => {
  it.each([
    { word: 'deploy', key: 'deploy', expected: 100 },
    { word: 'po', key: 'pods po pod', expected: 95 },
    { word: 'dep', key: 'deployments deploy', expected: 80 },
    { word: 'system', key: 'kube-system', expected: 95 },
    { word: 'ploy', key: 'deployments', expected: 50 },
    { word: 'dpl', key: 'deployments', expected: 15 },
    { word: 'xyz', key: 'deployments', expected: -1 },
  ])('scores "$word" in "$key" as $expected', ({ word, key, expected }) => {
    expect(wordScore(word, key)).toBe(expected);
  });

  it.each([
    { word: 'helm', key: 'theme: follow the system appearance colors' },
    { word: 'helm', key: 'theme: light appearance colors' },
    { word: 'dpy', key: 'dead puppy' },
    { word: 'pods', key: 'persistent volume claims' },
  ])('does not match "$word" to letters scattered over "$key"', ({ word, key }) => {
    expect(wordScore(word, key)).toBe(-1);
  });

  it.each([
    { word: 'crb', key: 'clusterrolebindings cluster role binding' },
    { word: 'pvc', key: 'persistent volume claims' },
    { word: 'dpl', key: 'web deployments' },
  ])('matches "$word" along word starts or inside one word of "$key"', ({ word, key }) => {
    expect(wordScore(word, key)).toBeGreaterThanOrEqual(10);
    expect(wordScore(word, key)).toBeLessThan(50);
  });

  it('prefers a later word start over an earlier mid-word hit', () => {
    expect(wordScore('po', 'tempo pod')).toBe(75);
  });
});

describe('fuzzyScore', () => {
  it('needs every word of the query to match', () => {
    expect(fuzzyScore(queryWords('web default'), 'web-1 default pod')).toBeGreaterThan(0);
    expect(fuzzyScore(queryWords('web prod'), 'web-1 default pod')).toBe(-1);
  });

  it('ranks a whole-word match above a prefix, a substring and a subsequence', () => {
    const words = queryWords('web');
    const scores = ['web', 'webapp', 'myweb', 'w-e-b'].map((key) => fuzzyScore(words, key));
    expect([...scores].sort((left, right) => right - left)).toEqual(scores);
  });
});

describe('rank', () => {
  const keys = ['pods po pod', 'deployments deploy', 'podsecurity', 'nginx-pod default pod', 'services svc'];

  it('keeps the best `limit` results, best first', () => {
    expect(rank(keys, 'po', (key) => key, 2).map((result) => result.item)).toEqual(['pods po pod', 'podsecurity']);
  });

  it('returns everything in input order for an empty query, capped', () => {
    expect(rank(keys, '  ', (key) => key, 3).map((result) => result.item)).toEqual(keys.slice(0, 3));
  });

  it('adds the boost to the score', () => {
    expect(rank(keys, 'po', (key) => key, 1, (key) => (key === 'podsecurity' ? 100 : 0))[0].item).toBe('podsecurity');
  });

  // its speed is a figure of `node bench/run.mjs ui-models`, not a timed test
  it('ranks the one matching key of 10,000 first', () => {
    const many = Array.from({ length: 10_000 }, (_, index) => `pod-${index} namespace-${index % 50} pod`);
    const results = rank(many, 'pod 4999', (key) => key, 50);
    expect(results[0].item).toBe('pod-4999 namespace-49 pod');
  });
});
