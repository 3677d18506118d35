import { describe, it, expect } from 'vitest';
import { parseLabelSelector, matchesLabels, parseFieldSelector, matchesFields } from './selectors';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', owner: 'helm' };
  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app=db', false],
    ['app in (db, web)', true],
    ['app notin (db,web)', false],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['name=rel1,owner=helm', false],
    ['owner=helm,app=web,tier', true],
    ['missing!=x', true],
  ])('matches %j → %s', (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it.each(['app=', 'app in', 'app in (a', '=x', 'a b', 'Bad Key=x'])('rejects or accepts %j without throwing anything but ApiError', (selector) => {
    try {
      parseLabelSelector(selector);
    } catch (error) {
      expect((error as { code?: number }).code).toBe(400);
    }
  });

  it('rejects a malformed set expression with a 400', () => {
    expect(() => parseLabelSelector('app in (a')).toThrow(/unable to parse requirement/);
  });
});

describe('field selectors', () => {
  const fields = { 'metadata.name': 'web-1', 'status.phase': 'Running', 'spec.nodeName': '' };
  it.each([
    ['metadata.name=web-1', true],
    ['metadata.name==web-1', true],
    ['metadata.name!=web-1', false],
    ['status.phase=Running,metadata.name=web-1', true],
    ['spec.nodeName=', true],
    ['spec.nodeName!=', false],
  ])('matches %j → %s', (selector, expected) => {
    expect(matchesFields(parseFieldSelector(selector), fields)).toBe(expected);
  });

  it('rejects a term without an operator', () => {
    expect(() => parseFieldSelector('metadata.name')).toThrow(/invalid selector/);
  });
});
