import { describe, expect, it } from 'vitest';
import { assignNames, sanitizeName, serverOfName, serverPrefixes } from '../../src/catalog/naming.js';

const options = { separator: '__', maxLength: 48 };

describe('qualified names', () => {
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
    expect(collisions).toEqual([{ name: 'search', servers: ['one', 'two'], tools: ['search', 'search'], given: expect.stringMatching(/^search_[0-9a-f]{6}$/) }]);
  });

  it('never gives an upstream tool a bridge tool name', () => {
    const { names } = assignNames([{ server: 's', tool: 'tool_search', prefix: false }], options);
    expect(names[0]).not.toBe('tool_search');
    expect(names[0]).toMatch(/^tool_search_[0-9a-f]{6}$/);
  });
});

describe('server prefixes decided from the config alone', () => {
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

describe('a name keeps its meaning across re-lists', () => {
  const getItem = { server: 'shop', tool: 'get_item', prefix: true };
  const getDotItem = { server: 'shop', tool: 'get.item', prefix: true };
  const zuluDeploy = { server: 'zulu', tool: 'deploy', prefix: false };
  const alphaDeploy = { server: 'alpha', tool: 'deploy', prefix: false };

  it('a re-list adding get.item beside get_item leaves shop__get_item on get_item; the later tool is suffixed', () => {
    const first = assignNames([getItem], options);
    expect(first.names).toEqual(['shop__get_item']);
    // Without the names given before, sorted order would hand the name to get.item ("." < "_").
    expect(assignNames([getItem, getDotItem], options).names).toEqual([expect.stringMatching(/^shop__get_item_[0-9a-f]{6}$/), 'shop__get_item']);
    const second = assignNames([getItem, getDotItem], options, first.given);
    expect(second.names[0]).toBe('shop__get_item');
    expect(second.names[1]).toMatch(/^shop__get_item_[0-9a-f]{6}$/);
    expect(second.given.get('shop__get_item')).toEqual(getItem);
    expect(second.collisions).toEqual([]);
  });

  it('a second prefix: false server adding deploy later leaves deploy on the first; the later tool is suffixed and reported', () => {
    const first = assignNames([zuluDeploy], options);
    expect(first.names).toEqual(['deploy']);
    expect(assignNames([zuluDeploy, alphaDeploy], options).names).toEqual([expect.stringMatching(/^deploy_/), 'deploy']);
    const second = assignNames([zuluDeploy, alphaDeploy], options, first.given);
    expect(second.names[0]).toBe('deploy');
    expect(second.names[1]).toMatch(/^deploy_[0-9a-f]{6}$/);
    expect(second.collisions).toEqual([{ name: 'deploy', servers: ['zulu', 'alpha'], tools: ['deploy', 'deploy'], given: second.names[1] }]);
    // The next re-list reports nothing new: both keep what they were given.
    const third = assignNames([alphaDeploy, zuluDeploy], options, second.given);
    expect(third.names).toEqual([second.names[1], 'deploy']);
    expect(third.collisions).toEqual([]);
  });

  it('a collision among prefix: false servers at start (nothing given yet) is still reported', () => {
    expect(assignNames([zuluDeploy, alphaDeploy], options).collisions).toHaveLength(1);
  });

  it('a name whose tool left the list is not given to another, and its tool gets it back when it returns', () => {
    const first = assignNames([getItem], options);
    const gone = assignNames([getDotItem], options, first.given);
    expect(gone.names[0]).toMatch(/^shop__get_item_[0-9a-f]{6}$/);
    const back = assignNames([getItem, getDotItem], options, gone.given);
    expect(back.names).toEqual(['shop__get_item', gone.names[0]]);
  });

  it('the names given before are not changed by a later call (an immutable input)', () => {
    const first = assignNames([getItem], options);
    const snapshot = new Map(first.given);
    assignNames([getItem, getDotItem, zuluDeploy], options, first.given);
    expect(first.given).toEqual(snapshot);
  });
});

describe('the server a qualified name belongs to (an unknown name of an upstream that is not up)', () => {
  const prefixes = serverPrefixes(['files', 'my.server', 'a__b'], '__');

  it('is the key whose prefix ends at the first separator', () => {
    expect(serverOfName('files__list_directory', prefixes, '__')).toBe('files');
    expect(serverOfName(`${prefixes.get('my.server')}__tool`, prefixes, '__')).toBe('my.server');
    expect(serverOfName(`${prefixes.get('a__b')}__tool`, prefixes, '__')).toBe('a__b');
  });

  it('is the key for a key ending in part of the separator ("my server!" sanitises to my_server_)', () => {
    const odd = serverPrefixes(['my server!', 'files_', '_', '!!!'], '__');
    expect(odd.get('my server!')).toBe('my_server');
    for (const key of odd.keys()) {
      const name = assignNames([{ server: key, tool: 'read', prefix: true }], { ...options, prefixes: odd }).names[0]!;
      expect(name).not.toContain('___');
      expect(serverOfName(name, odd, '__')).toBe(key);
    }
  });

  it('is the key under any separator the config accepts, whatever the key', () => {
    const keys = ['a', 'a_', 'a-', 'a--', '_', '-', 'x.y', 'x_-y', 'ab', 'ba', '1', 'server'];
    for (const separator of ['__', '_', '-', '--', '_-', '-_', 'a', 'ab', '1_']) {
      const prefixes = serverPrefixes(keys, separator);
      expect(new Set(prefixes.values()).size).toBe(keys.length);
      for (const key of keys) expect(serverOfName(`${prefixes.get(key)}${separator}tool`, prefixes, separator), `${key} with ${separator}`).toBe(key);
    }
  });

  it('is none for a bare name, an unknown prefix or an empty one', () => {
    expect(serverOfName('list_directory', prefixes, '__')).toBeUndefined();
    expect(serverOfName('other__tool', prefixes, '__')).toBeUndefined();
    expect(serverOfName('__tool', prefixes, '__')).toBeUndefined();
  });
});
