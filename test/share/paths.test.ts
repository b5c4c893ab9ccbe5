/**
 * Which shared instance a client joins: one per config file, flags, version and
 * values of the variables the file uses; its files sit in a private folder; the share switch's
 * precedence (flag > TOOLSHELF_SHARE > config).
 */
import { describe, expect, it } from 'vitest';
import { shareChosen } from '../../src/commands/serveFlags.js';
import { instancePaths, instancePathsOf, referencedVariables, socketPathProblem } from '../../src/share/paths.js';

const text = '{"mcpServers":{"a":{"command":"${CMD:-node}","env":{"T":"${TOKEN}"}}}}';

describe('instancePaths', () => {
  it('names the variables a config uses', () => {
    expect(referencedVariables(text)).toEqual(['CMD', 'TOKEN']);
  });

  it('gives clients that expand the file differently different instances, and the same one otherwise', () => {
    const env = { TOOLSHELF_STATE_DIR: '/tmp/s', TOKEN: 'x', UNRELATED: '1' };
    const base = instancePaths('/c/servers.config.json', text, [], '1.0.0', env);
    expect(instancePaths('/c/servers.config.json', text, [], '1.0.0', { ...env, UNRELATED: '2' })).toEqual(base);
    expect(instancePaths('/c/servers.config.json', text, [], '1.0.0', { ...env, TOKEN: 'y' }).socket).not.toBe(base.socket);
    expect(instancePaths('/d/servers.config.json', text, [], '1.0.0', env).socket).not.toBe(base.socket);
    expect(instancePaths('/c/servers.config.json', text, ['--log-level', 'debug'], '1.0.0', env).socket).not.toBe(base.socket);
    expect(instancePaths('/c/servers.config.json', text, [], '1.0.1', env).socket).not.toBe(base.socket);
  });

  it('keeps its files in the state folder, or the runtime folder when no state folder is set', () => {
    const inState = instancePaths('/c/x.json', '{}', [], '1', { TOOLSHELF_STATE_DIR: '/tmp/s', XDG_RUNTIME_DIR: '/run/user/1' });
    expect(inState.dir).toBe('/tmp/s/shared');
    const inRuntime = instancePaths('/c/x.json', '{}', [], '1', { XDG_RUNTIME_DIR: '/run/user/1' });
    expect(inRuntime.dir).toBe('/run/user/1/toolshelf');
    expect(Buffer.byteLength(inRuntime.socket)).toBeLessThan(107);
    expect(instancePathsOf(inRuntime.socket)).toEqual(inRuntime);
  });
});

describe('shareChosen', () => {
  it('takes the flag, then TOOLSHELF_SHARE, then the config', () => {
    expect(shareChosen(undefined, undefined, undefined, true)).toBe(true);
    expect(shareChosen(undefined, undefined, undefined, false)).toBe(false);
    expect(shareChosen(undefined, undefined, '0', true)).toBe(false);
    expect(shareChosen(undefined, undefined, '1', false)).toBe(true);
    expect(shareChosen(true, undefined, '0', false)).toBe(true);
    expect(shareChosen(undefined, true, '1', true)).toBe(false);
  });
});

describe('socketPathProblem', () => {
  it("refuses a path over sun_path's size, counted in bytes, per platform (unix(7))", () => {
    const at = (bytes: number): string => `/${'é'.repeat(Math.floor((bytes - 1) / 2))}${(bytes - 1) % 2 ? 'x' : ''}`;
    expect(Buffer.byteLength(at(107))).toBe(107);
    expect(socketPathProblem(at(107), 'linux')).toBeUndefined();
    expect(socketPathProblem(at(108), 'linux')).toMatch(/is 108 bytes, over the 107/);
    expect(socketPathProblem(at(103), 'darwin')).toBeUndefined();
    expect(socketPathProblem(at(104), 'darwin')).toMatch(/is 104 bytes, over the 103/);
    expect(socketPathProblem(at(300), 'win32')).toBeUndefined();
  });
});
