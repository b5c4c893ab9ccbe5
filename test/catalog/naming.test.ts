import { describe, expect, it } from 'vitest';
import { assignNames, sanitizeName, serverPrefixes } from '../../src/catalog/naming.js';

const options = { separator: '__', maxLength: 48 };

describe('qualified names (DESIGN §4)', () => {
  it('prefixes with the server key and keeps only [A-Za-z0-9_-]', () => {
    const { names } = assignNames([{ server: 'files', tool: 'read_text_file', prefix: true }, { server: 'my.srv', tool: 'get.user/v2', prefix: true }], options);
    expect(names).toEqual(['files__read_text_file', 'my_srv__get_user_v2']);
    expect(sanitizeName('héllo wörld')).toBe('h_llo_w_rld');
  });

  it('shortens over-long names to maxLength with a stable hash suffix', () => {
    const tool = 'a_really_long_tool_name_that_goes_on_and_on_forever';
    const first = assignNames([{ server: 'server', tool, prefix: true }], options).names[0] as string;
    const again = assignNames([{ server: 'server', tool, prefix: true }], options).names[0];
    expect(first.length).toBeLessThanOrEqual(48);
    expect(first).toMatch(/^server__a_really_long.*_[0-9a-f]{6}$/);
    expect(again).toBe(first);
  });

  it('resolves collisions deterministically, whatever order the upstreams answered in', () => {
    const a = { server: 'a.b', tool: 'x', prefix: true };
    const b = { server: 'a_b', tool: 'x', prefix: true };
    const one = assignNames([a, b], options).names;
    const two = assignNames([b, a], options).names;
    expect(new Set(one).size).toBe(2);
    expect(one).toEqual([...two].reverse());
    expect(one[0]).toBe('a_b__x');
  });

  it('keeps routing total when a server key contains the separator', () => {
    const { names } = assignNames([{ server: 'a__b', tool: 'c', prefix: true }, { server: 'a', tool: 'b__c', prefix: true }], options);
    expect(new Set(names).size).toBe(2);
  });

  it('reports a collision involving a prefix: false server, naming both servers', () => {
    const { collisions } = assignNames([{ server: 'one', tool: 'search', prefix: false }, { server: 'two', tool: 'search', prefix: false }], options);
    expect(collisions).toEqual([{ name: 'search', servers: ['one', 'two'], tools: ['search', 'search'] }]);
  });

  it('never gives an upstream tool a bridge tool name', () => {
    const { names } = assignNames([{ server: 's', tool: 'tool_search', prefix: false }], options);
    expect(names[0]).not.toBe('tool_search');
    expect(names[0]).toMatch(/^tool_search_[0-9a-f]{6}$/);
  });
});

describe('server prefixes decided from the config alone (breaker H1)', () => {
  it('a key holding the separator cannot produce another server\'s name, whichever upstreams are up', () => {
    const prefixes = serverPrefixes(['a__b', 'a'], '__');
    expect(prefixes.get('a__b')).toBe('a-b');
    const both = assignNames([{ server: 'a__b', tool: 'c', prefix: true }, { server: 'a', tool: 'b__c', prefix: true }], { ...options, prefixes }).names;
    const onlyFirst = assignNames([{ server: 'a__b', tool: 'c', prefix: true }], { ...options, prefixes }).names;
    expect(both).toEqual(['a-b__c', 'a__b__c']);
    expect(onlyFirst).toEqual(['a-b__c']);
  });

  it('keys that sanitise alike get distinct prefixes, stable across runs', () => {
    const prefixes = serverPrefixes(['my.srv', 'my_srv', 'my srv'], '__');
    expect(new Set(prefixes.values()).size).toBe(3);
    expect(serverPrefixes(['my_srv', 'my srv', 'my.srv'], '__')).toEqual(prefixes);
    expect(prefixes.get('my srv')).toBe('my_srv');
  });
});
