/**
 * The stdio relay's entry decides from serve's flags and the config file's text alone whether this
 * client relays to the shared instance (src/relay.ts); anything it leaves, serve reports or serves.
 * Its plain flag reader agrees with node:util's parseArgs wherever it reads anything.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { plainServeArgs, SERVE_ARGS } from '../../src/commands/serveFlags.js';
import { relayPlan } from '../../src/relay.js';
import { tempDir } from '../helpers/gateway.js';

const parsed = (argv: string[]): unknown => {
  try {
    return { ...parseArgs({ args: argv, ...SERVE_ARGS }).values };
  } catch {
    return 'usage error';
  }
};

describe('plainServeArgs', () => {
  const vectors: string[][] = [
    [],
    ['--config', 'a.json'],
    ['-c', 'a.json', '--share'],
    ['--config=a.json', '--log-level', 'debug', '--no-share'],
    ['--config', 'a.json', '--config', 'b.json'],
    ['--config='],
    ['--config=--x'],
    ['--view', 'chat', '--trace', 't.jsonl', '--token', 'x'],
    ['--http', '127.0.0.1:0'],
    ['--shared-instance', '/tmp/x.sock', '--help', '--version'],
    // Left to parseArgs: it reads these (or refuses them) in ways the plain reader does not try.
    ['--config', '--share'],
    ['--config'],
    ['-ca.json'],
    ['-c=a.json'],
    ['-h'],
    ['--share=true'],
    ['--conf', 'a.json'],
    ['stray'],
    ['--', '--config', 'a.json'],
    ['--constructor', 'x'],
    ['--__proto__=x'],
  ];

  it('reads what parseArgs reads, or leaves the arguments to it', () => {
    for (const argv of vectors) {
      const plain = plainServeArgs(argv);
      if (plain !== undefined) expect({ argv, values: { ...plain } }).toEqual({ argv, values: parsed(argv) });
    }
  });

  it('reads the forms a client config writes', () => {
    expect(plainServeArgs(['--config', '/home/u/servers.config.json', '--log-level', 'warn'])).toEqual({ config: '/home/u/servers.config.json', 'log-level': 'warn' });
    expect(plainServeArgs(['--share', '--view=chat'])).toEqual({ share: true, view: 'chat', 'log-level': 'info' });
    expect(plainServeArgs(['-ca.json'])).toBeUndefined();
  });
});

describe('relayPlan', () => {
  const dir = tempDir('toolshelf-relay-plan-');
  const config = (text: string): string => {
    const path = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, text);
    return path;
  };
  const values = (argv: string[]) => {
    try {
      return plainServeArgs(argv) ?? parseArgs({ args: argv, ...SERVE_ARGS }).values;
    } catch {
      return undefined;
    }
  };
  const plan = (argv: string[], env: Record<string, string> = {}) => relayPlan(values(argv), env, dir);
  const valid = config('{"mcpServers":{},"views":{"chat":{"servers":[]}}}');

  it('relays a stdio client by default, keyed by the absolute path and text of its config', () => {
    const chosen = plan(['--config', valid, '--log-level', 'debug']);
    expect(chosen).toMatchObject({ configPath: valid, configFile: { path: valid, text: '{"mcpServers":{},"views":{"chat":{"servers":[]}}}' }, logLevel: 'debug' });
    expect(chosen?.note).toBeUndefined();
    expect(plan(['--config', valid, '--view', 'chat'])?.view).toBe('chat');
  });

  it('leaves to serve whatever is not a stdio client relaying', () => {
    expect(plan(['--config', valid, '--no-share'])).toBeUndefined();
    expect(plan(['--config', valid], { TOOLSHELF_SHARE: '0' })).toBeUndefined();
    expect(plan(['--config', config('{"mcpServers":{},"share":{"enabled":false}}')])).toBeUndefined();
    expect(plan(['--config', valid, '--http', '0'])).toBeUndefined();
    expect(plan(['--config', valid, '--help'])).toBeUndefined();
    expect(plan(['--config', valid, '--log-level', 'loud'])).toBeUndefined();
    expect(plan(['--config', valid, '--view', 'nope'])).toBeUndefined();
    expect(plan(['--config', valid, '--bogus'])).toBeUndefined();
    expect(plan(['--config', join(dir, 'missing.json')])).toBeUndefined();
    expect(plan(['--config', config('{ "mcpServers": ')])).toBeUndefined();
    expect(plan(['--config', config('[]')])).toBeUndefined();
    expect(plan(['--config', config('{"mcpServers":{},"share":{"enabled":null}}')])).toBeUndefined();
    expect(plan(['--config', config('{"mcpServers":{},"share":"yes"}')])).toBeUndefined();
  });

  it('relays when a flag or TOOLSHELF_SHARE turns sharing on over the config', () => {
    const off = config('{"mcpServers":{},"share":{"enabled":false}}');
    expect(plan(['--config', off, '--share'])).toBeDefined();
    expect(plan(['--config', off], { TOOLSHELF_SHARE: '1' })).toBeDefined();
  });

  it('carries the warning for a bearer token, which applies over HTTP only', () => {
    expect(plan(['--config', valid, '--token', 'x'])?.tokenWarning).toBe('--token only applies to --http; over stdio it is ignored');
    expect(plan(['--config', valid], { TOOLSHELF_TOKEN: 'x' })?.tokenWarning).toBe('TOOLSHELF_TOKEN is set but only applies to --http; over stdio it is ignored');
  });
});
