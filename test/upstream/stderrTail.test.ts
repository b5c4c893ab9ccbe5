/**
 * The stderr line quoted when an upstream exits or fails to start: the one naming a problem, never
 * Node's version banner, a stack frame or a run of filler; clipped. Inputs are what real upstreams printed.
 * Source: docs/robustness.md.
 */
import { describe, expect, it } from 'vitest';
import { informativeLine, QUOTE_MAX_CHARS, StderrTail, STDERR_TAIL_LINES } from '../../src/upstream/stderrTail.js';

/** `node /nonexistent/missing.mjs` on Node 20, line by line. */
const MODULE_NOT_FOUND = [
  'node:internal/modules/cjs/loader:1210',
  '  throw err;',
  '  ^',
  '',
  "Error: Cannot find module '/nonexistent/missing.mjs'",
  '    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)',
  '    at Module._load (node:internal/modules/cjs/loader:1038:27)',
  '    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)',
  '    at node:internal/main/run_main_module:28:49 {',
  "  code: 'MODULE_NOT_FOUND',",
  '  requireStack: []',
  '}',
  '',
  'Node.js v20.20.2',
];

describe('informativeLine', () => {
  it('quotes the error of a Node crash, not its version banner', () => {
    expect(informativeLine(MODULE_NOT_FOUND)).toBe("Error: Cannot find module '/nonexistent/missing.mjs'");
  });

  it('quotes nothing for a line of 500 x (a flood cut to its first bytes)', () => {
    expect(informativeLine(['x'.repeat(500)])).toBeUndefined();
  });

  it('prefers the last line naming a problem, e.g. the end of a Python traceback', () => {
    const traceback = ['Traceback (most recent call last):', '  File "/srv/main.py", line 1, in <module>', "ModuleNotFoundError: No module named 'mcp'"];
    expect(informativeLine(traceback)).toBe("ModuleNotFoundError: No module named 'mcp'");
    expect(informativeLine(['fixture: fatal error, exiting'])).toBe('fixture: fatal error, exiting');
  });

  it('falls back to the last line that reads as words', () => {
    expect(informativeLine(['Usage: server --token <token>', 'x'.repeat(300)])).toBe('Usage: server --token <token>');
  });

  it(`clips a long line to ${QUOTE_MAX_CHARS} characters`, () => {
    const quote = informativeLine([`Error: ${'y '.repeat(400)}`]) as string;
    expect(quote).toHaveLength(QUOTE_MAX_CHARS);
    expect(quote.endsWith('…')).toBe(true);
  });
});

describe('StderrTail', () => {
  it(`keeps the last ${STDERR_TAIL_LINES} lines, so an error line survives a stack trace after it`, () => {
    const tail = new StderrTail();
    tail.push('Error: boom');
    for (let i = 0; i < STDERR_TAIL_LINES - 1; i++) tail.push(`    at frame${i} (file.js:${i}:1)`);
    expect(tail.quote()).toBe('Error: boom');
    tail.push('    at one more (file.js:1:1)');
    expect(tail.quote()).toBeUndefined();
    tail.clear();
    expect(tail.quote()).toBeUndefined();
  });
});

/** `npx -y @modelcontextprotocol/server-toolshelf-nope` with npm 11, exactly. */
const NPX_E404 = [
  'npm error code E404',
  'npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-toolshelf-nope',
  'npm error 404',
  "npm error 404  The requested resource '@modelcontextprotocol/server-toolshelf-nope@*' could not be found or you do not have permission to access it.",
  'npm error 404',
  'npm error 404 Note that you can also install from a',
  'npm error 404 tarball, folder, http url, or git url.',
  'npm error A complete log of this run can be found in: /root/.npm/_logs/2026-12-01T08_53_31_984Z-debug-0.log',
];

describe('messages that say what is wrong', () => {
  it("a failing npx upstream is quoted by npm's error code and the line that says why, not its log path", () => {
    expect(informativeLine(NPX_E404)).toBe('npm error code E404: 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-toolshelf-nope');
    // Older npm writes `npm ERR!`.
    expect(informativeLine(NPX_E404.map((l) => l.replace('npm error', 'npm ERR!')))).toBe(
      'npm ERR! code E404: 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-toolshelf-nope',
    );
    expect(informativeLine(['npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log'])).toBeUndefined();
  });

  it("a start-up banner is not quoted as a cause: server-filesystem's own lines", () => {
    expect(informativeLine(['Secure MCP Filesystem Server running on stdio'])).toBeUndefined();
    expect(informativeLine(['Knowledge Graph MCP Server running on stdio', 'Usage: mcp-server-memory takes no arguments'])).toBe('Usage: mcp-server-memory takes no arguments');
  });

  it('lines written before the connection was up are never quoted for a later exit', () => {
    const tail = new StderrTail();
    tail.push('Secure MCP Filesystem Server running on stdio');
    tail.push("Client does not support MCP Roots, using allowed directories set from server args: [ '/tmp/sandbox' ]");
    expect(tail.quote()).toBe("Client does not support MCP Roots, using allowed directories set from server args: [ '/tmp/sandbox' ]");
    tail.markUp();
    expect(tail.quote()).toBeUndefined();
    tail.push('Error: EMFILE: too many open files');
    expect(tail.quote()).toBe('Error: EMFILE: too many open files');
  });
});
