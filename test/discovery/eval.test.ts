import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluate, runEval } from '../../src/commands/eval.js';

const tools = [
  { name: 'files__read_file', description: 'Read a file from disk.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'files__write_file', description: 'Write text to a file on disk.', inputSchema: { type: 'object' } },
  { name: 'web__fetch', description: 'Fetch a web page by URL.', inputSchema: { type: 'object' } },
].map((tool) => JSON.stringify(tool)).join('\n');
const queries = [
  { id: '1', query: 'read the file', relevant: ['files__read_file'] },
  { id: '2', query: 'download a web page', relevant: ['web__fetch'] },
  { id: '3', query: 'save text then fetch url', relevant: ['files__write_file', 'web__fetch'] },
].map((query) => JSON.stringify(query)).join('\n');

describe('toolshelf eval', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolshelf-eval-'));
  const toolsFile = join(dir, 'tools.jsonl');
  const queriesFile = join(dir, 'queries.jsonl');
  writeFileSync(toolsFile, `${tools}\nnot json\n`);
  writeFileSync(queriesFile, queries);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('scores the server index and the plain baseline on a tiny fixture', () => {
    const report = evaluate(tools, queries, [1, 3]);
    expect(report).toMatchObject({ tools: 3, queries: 3, skippedLines: 0 });
    expect(report.toolshelf.recall[3]).toBe(1);
    expect(report.toolshelf.recall[1]).toBeCloseTo((1 + 1 + 0.5) / 3, 12);
  });

  it('prints a table with both rankings and returns 0', async () => {
    const lines: string[] = [];
    expect(await runEval(['--tools', toolsFile, '--queries', queriesFile, '--k', '1,5'], (line) => lines.push(line))).toBe(0);
    expect(lines[0]).toBe('3 tools, 3 queries, 1 malformed line skipped');
    expect(lines[1]).toBe('| metric    | toolshelf | plain BM25 | delta |');
    expect(lines.some((line) => line.startsWith('| Recall@5  |'))).toBe(true);
    expect(lines.some((line) => line.startsWith('| MRR@10    |'))).toBe(true);
  });

  it('--json prints one machine-readable object', async () => {
    const lines: string[] = [];
    await runEval(['--tools', toolsFile, '--queries', queriesFile, '--json'], (line) => lines.push(line));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ tools: 3, queries: 3, ks: [1, 5, 10] });
  });

  it('usage errors exit 2, unreadable files exit 1, each said on stderr as toolshelf: … (on stdout, unprefixed)', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const run = (argv: string[]) => runEval(argv, (line) => out.push(line), (line) => err.push(line));
    expect(await run(['--tools', toolsFile])).toBe(2);
    expect(await run(['--tools', toolsFile, '--queries', queriesFile, '--k', 'x'])).toBe(2);
    expect(await run(['--tools', join(dir, 'absent'), '--queries', queriesFile])).toBe(1);
    expect(await run(['--tols', toolsFile])).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('\n')).toMatch(/usage: toolshelf eval/);
    expect(err.every((line) => line.startsWith('toolshelf: '))).toBe(true);
    expect(err.join('\n')).toContain(`Unknown option '--tols'; did you mean "--tools"?`);
  });
});
