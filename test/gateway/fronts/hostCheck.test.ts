/**
 * The names the HTTP front answers to, the URL it prints, and its start-up lines about reach, on the
 * interfaces of a machine with eth0 192.0.2.2 / fd00::2. Source: docs/http.md.
 */
import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { allowedHostnames, clientUrl, hostOfHeader, isLoopback, isWildcard, reachLines, type Interfaces } from '../../../src/gateway/fronts/hostCheck.js';

const info = (address: string, family: 'IPv4' | 'IPv6', internal: boolean): NetworkInterfaceInfo =>
  ({ address, family, internal, netmask: '', mac: '00:00:00:00:00:00', cidr: null, ...(family === 'IPv6' ? { scopeid: 0 } : {}) }) as NetworkInterfaceInfo;
const machine: Interfaces = {
  lo: [info('127.0.0.1', 'IPv4', true), info('::1', 'IPv6', true)],
  eth0: [info('192.0.2.2', 'IPv4', false), info('fd00::2', 'IPv6', false), info('fe80::fc:ff:fe00:1', 'IPv6', false)],
};

describe('allowedHostnames (DNS rebinding)', () => {
  it("a wildcard bind answers to loopback names, this machine's addresses and its host name, lower-cased", () => {
    for (const bound of ['0.0.0.0', '::', '[::]']) {
      const names = allowedHostnames(bound, machine, 'VM');
      expect([...names].sort()).toEqual(['127.0.0.1', '192.0.2.2', '::1', 'fd00::2', 'fe80::fc:ff:fe00:1', 'localhost', 'vm'].sort());
      expect(names.has('evil.example')).toBe(false);
      expect(names.has('0.0.0.0')).toBe(false);
    }
  });

  it('a specific bind answers to loopback names and the bound host only, never to the interfaces', () => {
    expect([...allowedHostnames('127.0.0.1', machine, 'vm')].sort()).toEqual(['127.0.0.1', '::1', 'localhost']);
    expect([...allowedHostnames('192.0.2.2', machine, 'vm')].sort()).toEqual(['127.0.0.1', '192.0.2.2', '::1', 'localhost']);
    expect(allowedHostnames('[FD00::2]', machine, 'vm').has('fd00::2')).toBe(true);
  });
});

describe('isWildcard / isLoopback', () => {
  it('tells every-interface and loopback binds apart', () => {
    expect(['0.0.0.0', '::', '[::]'].map(isWildcard)).toEqual([true, true, true]);
    expect(['127.0.0.1', '192.0.2.2', '::1'].map(isWildcard)).toEqual([false, false, false]);
    expect(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST.', '::1', '[::1]', '::ffff:127.0.0.1'].map(isLoopback)).toEqual(Array(7).fill(true));
    expect(['0.0.0.0', '::', '192.0.2.2', 'fd00::2', 'vm', '127.0.0.1.evil.example'].map(isLoopback)).toEqual(Array(6).fill(false));
  });
});

describe('clientUrl', () => {
  it('gives the loopback URL for a wildcard bind, and the bound address otherwise', () => {
    expect(clientUrl('0.0.0.0', 3333)).toBe('http://127.0.0.1:3333/mcp');
    expect(clientUrl('::', 3333)).toBe('http://[::1]:3333/mcp');
    expect(clientUrl('127.0.0.1', 3333)).toBe('http://127.0.0.1:3333/mcp');
    expect(clientUrl('fd00::2', 80)).toBe('http://[fd00::2]:80/mcp');
  });
});

describe('reachLines', () => {
  it("a wildcard bind names other machines' URLs (no internal or link-local address); without a token it warns", () => {
    expect(reachLines('0.0.0.0', 3333, false, machine)).toEqual({
      info: ["listening on every interface (0.0.0.0): other machines use http://192.0.2.2:3333/mcp (Host: this machine's addresses or host name)"],
      warn: [
        `serving 0.0.0.0:3333 beyond loopback with no token: anyone who can reach that address can call every upstream's tools. Set TOOLSHELF_TOKEN (or --token) to require "Authorization: Bearer <token>"`,
      ],
    });
    expect(reachLines('::', 3333, true, machine)).toEqual({
      info: ["listening on every interface (::): other machines use http://192.0.2.2:3333/mcp or http://[fd00::2]:3333/mcp (Host: this machine's addresses or host name)"],
      warn: [],
    });
  });

  it('a specific address beyond loopback warns without a token; loopback never does', () => {
    expect(reachLines('192.0.2.2', 3333, false, machine).warn).toHaveLength(1);
    expect(reachLines('192.0.2.2', 3333, true, machine)).toEqual({ info: [], warn: [] });
    for (const bound of ['127.0.0.1', 'localhost', '::1']) expect(reachLines(bound, 3333, false, machine)).toEqual({ info: [], warn: [] });
  });
});

describe('hostOfHeader ("[::1]evil.com" was read as ::1 and served)', () => {
  it('reads host [":" port], IPv6 in brackets, lower-cased without a trailing dot', () => {
    expect(['127.0.0.1:8080', 'LOCALHOST.:1', 'localhost', '[::1]:3000', '[::1]', '[FD00::2]:80', 'vm:', '192.0.2.2.:9'].map(hostOfHeader)).toEqual([
      '127.0.0.1',
      'localhost',
      'localhost',
      '::1',
      '::1',
      'fd00::2',
      'vm',
      '192.0.2.2',
    ]);
  });

  it('refuses anything else, so no allowed name can be smuggled in front of another', () => {
    for (const header of ['[::1]evil.com', '[::1]:80evil', '[::1].evil.com:80', 'localhost:80:80', 'localhost:8o', 'user@localhost', 'localhost/x', 'local host', '[evil.com]', '', ':80', '[]:80']) {
      expect(hostOfHeader(header), header).toBeUndefined();
    }
  });
});
