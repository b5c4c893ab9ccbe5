import { describe, expect, it } from 'vitest';
import { isStopWord, splitCase, splitWords, stem, tokenize } from '../../src/discovery/tokenize.js';

describe('identifier splitting', () => {
  it.each([
    ['read_text_file', ['read', 'text', 'file']],
    ['list-allowed-directories', ['list', 'allowed', 'directories']],
    ['browser.take_screenshot', ['browser', 'take', 'screenshot']],
    ['github__create_issue', ['github', 'create', 'issue']],
    ['getHTTPResponse', ['gethttpresponse', 'get', 'http', 'response']],
    ['base64Encode', ['base64encode', 'base', '64', 'encode']],
    ['v2', ['v2', 'v', '2']],
  ])('%s → %j', (input, words) => {
    expect(splitWords(input)).toEqual(words);
  });

  it('splits case and digit boundaries inside one chunk', () => {
    expect(splitCase('getHTTPResponse2xx')).toEqual(['get', 'HTTP', 'Response', '2', 'xx']);
  });

  it('keeps a camelCase word whole as well, so "github" matches "GitHub"', () => {
    expect(tokenize('GitHub')).toContain('github');
  });
});

describe('terms', () => {
  it('drops stop words and request filler, keeps intent verbs', () => {
    expect(tokenize('Can you please help me find the latest papers?')).toEqual(['find', 'latest', 'paper']);
    expect(isStopWord('search')).toBe(false);
  });

  it('keeps stop words when nothing else is left (a tool named "show_all")', () => {
    expect(tokenize('show_all')).toEqual(['show', 'all']);
  });

  it('stems inflections to one form', () => {
    expect(new Set(['searches', 'searching', 'searched', 'search'].map(stem))).toEqual(new Set(['search']));
    expect(stem('created')).toBe(stem('create'));
    expect(stem('queries')).toBe(stem('query'));
    expect(stem('install')).toBe('install');
  });

  it('turns CJK runs into character bigrams and never throws on other scripts', () => {
    expect(tokenize('使用必应搜索')).toEqual(['使用', '用必', '必应', '应搜', '搜索']);
    expect(tokenize('八字')).toEqual(['八字']);
    expect(tokenize('Привет, мир — ¿qué tal? 🙂')).toEqual(['привет', 'мир', 'qué', 'tal']);
    expect(tokenize('')).toEqual([]);
    expect(tokenize('!!! ---')).toEqual([]);
  });
});
