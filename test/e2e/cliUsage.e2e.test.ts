/**
 * The command line as a new user meets it, through the built CLI: `help` prints the usage, and a token
 * given over stdio is said to do nothing there. A serving run serves an empty config over
 * stdio with stdin closed at once, so the gateway starts, sees its client gone and exits.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliPath, writeConfig } from '../helpers/gateway.js';

/** Runs the CLI with `args` and `env` over the test's environment (TOOLSHELF_TOKEN removed), stdin empty. */
function run(args: string[], env: Record<string, string> = {}) {
  const { TOOLSHELF_TOKEN: _unset, ...base } = process.env;
  return spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', input: '', timeout: 20_000, env: { ...base, ...env } });
}

describe('a token over stdio', () => {
  const config = writeConfig({ mcpServers: {} });
  const ignored = /only applies to --http; over stdio it is ignored/;

  it('--token over stdio is served as before, with a warning that it only applies to --http', () => {
    const result = run(['--config', config, '--no-share', '--token', 's3cret']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('toolshelf: warn: --token only applies to --http; over stdio it is ignored\n');
    expect(result.stderr).not.toContain('s3cret');
  });

  it('TOOLSHELF_TOKEN over stdio warns the same; unset or empty, no warning', () => {
    const result = run(['--config', config, '--no-share'], { TOOLSHELF_TOKEN: 's3cret' });
    expect(result.stderr).toContain('toolshelf: warn: TOOLSHELF_TOKEN is set but only applies to --http; over stdio it is ignored\n');
    expect(run(['--config', config, '--no-share']).stderr).not.toMatch(ignored);
    expect(run(['--config', config, '--no-share'], { TOOLSHELF_TOKEN: '' }).stderr).not.toMatch(ignored);
  });
});

describe('help', () => {
  it('`toolshelf help` prints the usage like --help, exit 0 (it was "Unexpected argument \'help\'", exit 2)', () => {
    const help = run(['help']);
    expect(help.status).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(/^Usage: toolshelf \[serve\]/);
    expect(help.stdout).toContain('toolshelf help | --help | --version');
    const flag = run(['--help']);
    expect(flag.status).toBe(0);
    expect(help.stdout).toBe(flag.stdout);
  });

  it('--version prints the package version, exit 0', () => {
    const result = run(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('a mistyped option ("Unknown option \'--htp\'" with no guess)', () => {
  it('gets the option it is closest to, as a mistyped command does, exit 2; one close to none gets no guess', () => {
    const serve = run(['--htp', '3000']);
    expect(serve.status).toBe(2);
    expect(serve.stderr).toContain(`toolshelf: Unknown option '--htp'; did you mean "--http"?`);
    expect(run(['inspect', '--jsn']).stderr).toContain(`toolshelf: Unknown option '--jsn'; did you mean "--json"?`);
    expect(run(['search', 'x', '--limt', '3']).stderr).toContain(`Unknown option '--limt'; did you mean "--limit"?`);
    expect(run(['--zzzzzz']).stderr).toContain(`toolshelf: Unknown option '--zzzzzz'\n`);
  });

  it('a mistyped auth action gets the one it is closest to, exit 2 (it was "unexpected arguments: auth logn x")', () => {
    const auth = run(['auth', 'logn', 'x']);
    expect(auth.status).toBe(2);
    expect(auth.stderr).toContain('toolshelf: unknown auth action "logn"; did you mean "auth login"?');
    expect(run(['auth', 'zzzzzz']).stderr).toContain('toolshelf: unknown auth action "zzzzzz"\n');
  });
});
