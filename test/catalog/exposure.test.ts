import { describe, expect, it } from 'vitest';
import { decideExposure, globMatches, sortKeywords, unmatchedRules } from '../../src/catalog/exposure.js';

describe('exposure rules', () => {
  const rules = {
    'move_*': { exposure: 'hidden' as const },
    'move_file*': { exposure: 'direct' as const },
    move_file_fast: { exposure: 'deferred' as const, keywords: ['mv'] },
    'read_*': { keywords: ['open', 'cat'] },
  };

  it('exact name > longest glob > server > global', () => {
    expect(decideExposure('move_file_fast', rules, 'direct', 'deferred').exposure).toBe('deferred');
    expect(decideExposure('move_file_slow', rules, undefined, 'deferred').exposure).toBe('direct');
    expect(decideExposure('move_dir', rules, undefined, 'deferred').exposure).toBe('hidden');
    expect(decideExposure('read_text', rules, 'direct', 'deferred').exposure).toBe('direct');
    expect(decideExposure('other', undefined, undefined, 'deferred').exposure).toBe('deferred');
  });

  it('gathers keywords from every matching rule, sorted shorter first then alphabetically', () => {
    expect(decideExposure('read_text', rules, undefined, 'deferred').keywords).toEqual(['cat', 'open']);
    expect(sortKeywords(['zeta', 'ab', 'b', 'ab', ' '])).toEqual(['b', 'ab', 'zeta']);
  });

  it('globs match * and ? and treat regex characters literally', () => {
    expect(globMatches('get.*', 'get.user')).toBe(true);
    expect(globMatches('get.*', 'getXuser')).toBe(false);
    expect(globMatches('a?c', 'abc')).toBe(true);
  });
});

describe('rules that match no tool', () => {
  const names = ['read_file', 'read_text_file', 'list_directory'];

  it('names the exact rules and globs no listed tool matches, in the rules\' order', () => {
    const rules = { 'no-such-tool': { exposure: 'direct' as const }, read_file: { exposure: 'hidden' as const }, 'write_*': { exposure: 'hidden' as const }, 'read_*': { keywords: ['open'] }, read_fle: { exposure: 'hidden' as const } };
    expect(unmatchedRules(rules, names)).toEqual(['no-such-tool', 'write_*', 'read_fle']);
  });

  it('has nothing to say without rules', () => {
    expect(unmatchedRules(undefined, names)).toEqual([]);
    expect(unmatchedRules({}, names)).toEqual([]);
  });
});
