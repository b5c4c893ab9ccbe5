/**
 * `toolshelf eval` says what is wrong with its input: an unknown `--subset` names the subsets that
 * exist (it used to print "nothing to evaluate: …, 0 queries"), and every skipped line is reported
 * with its file, line number and reason (it used to be a bare count). Source: docs/cli.md.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEval } from '../../src/commands/eval.js';
import { tempDir } from '../helpers/gateway.js';

const TOOLS = [
  '{"name": "ResearchHelper", "description": "Find research papers.", "inputSchema": {"type": "object"}}',
  '{"name": "SEOTool", "description": "Generate SEO content for a website.", "inputSchema": {"type": "object"}}',
  '{"description": "a tool without a name"}',
  'not json',
].join('\n');
// The shape of shared/data/retrieval/metatool/queries.jsonl.
const QUERIES = [
  '{"id": "single_8", "query": "Can you find me relevant papers?", "relevant": ["ResearchHelper"], "subset": "single"}',
  '{"id": "single_26", "query": "Can you help me generate SEO content for my website?", "relevant": ["SEOTool"], "subset": "single"}',
  '{"id": "multi_1", "query": "Find papers and write SEO content", "relevant": ["ResearchHelper", "SEOTool"], "subset": "multi"}',
].join('\n');

function files(queries = QUERIES): { tools: string; queries: string } {
  const dir = tempDir('toolshelf-eval-');
  const paths = { tools: join(dir, 'tools.jsonl'), queries: join(dir, 'queries.jsonl') };
  writeFileSync(paths.tools, TOOLS);
  writeFileSync(paths.queries, queries);
  return paths;
}

async function run(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runEval(argv, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err };
}

describe('toolshelf eval messages', () => {
  it('--subset singel (a typo) exits 2 naming the subsets that exist, with their query counts', async () => {
    const f = files();
    const result = await run(['--tools', f.tools, '--queries', f.queries, '--subset', 'singel']);
    expect(result.code).toBe(2);
    expect(result.out).toEqual([]);
    expect(result.err).toContain(`toolshelf: no query has subset "singel"; the subsets in ${f.queries} are: single (2 queries), multi (1 queries)`);
  });

  it('--subset on a file without subsets says that no query has one', async () => {
    const f = files('{"id": "1", "query": "find papers", "relevant": ["ResearchHelper"]}');
    const result = await run(['--tools', f.tools, '--queries', f.queries, '--subset', 'single']);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`toolshelf: no query has subset "single"; no query in ${f.queries} has a "subset" field`);
  });

  it('reports each skipped line with its file, line number and reason, and still scores the rest', async () => {
    const f = files();
    const result = await run(['--tools', f.tools, '--queries', f.queries, '--subset', 'single']);
    expect(result.code).toBe(0);
    expect(result.out[0]).toBe('2 tools, 2 queries, 2 malformed lines skipped');
    expect(result.err).toHaveLength(2);
    expect(result.err[0]).toMatch(new RegExp(`^toolshelf: ${f.tools} line 3 skipped: .*name`));
    expect(result.err[1]).toMatch(new RegExp(`^toolshelf: ${f.tools} line 4 skipped: invalid JSON: `));
  });
});
