/**
 * `toolshelf eval --tools FILE --queries FILE [--k 1,5,10] [--subset NAME] [--json]`: retrieval
 * quality of the server's own search index over a JSONL pair (shared/data/retrieval format), beside
 * a plain BM25 baseline on the same text. Owns argument parsing, file reading and printing; the
 * index, metrics and baseline live in `discovery/`. Prints through `out` only; `cli.ts` wires it.
 * Source: issue 4 (`toolshelf eval`); shared/data/README.md (formats, metrics, baseline).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { summarise, type MetricSummary } from '../discovery/metrics.js';
import { buildPlainBm25 } from '../discovery/plainBm25.js';
import { parseQueries, parseTools, toCatalogEntry } from '../discovery/retrievalSet.js';
import { buildSearchIndex, propertyText } from '../discovery/searchIndex.js';

const USAGE = 'usage: toolshelf eval --tools FILE --queries FILE [--k 1,5,10] [--subset NAME] [--json]';

interface EvalArgs {
  readonly tools: string;
  readonly queries: string;
  readonly ks: number[];
  readonly subset?: string;
  readonly json: boolean;
}

function parseEvalArgs(argv: string[]): EvalArgs | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        tools: { type: 'string' },
        queries: { type: 'string' },
        k: { type: 'string', default: '1,5,10' },
        subset: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    return (error as Error).message;
  }
  if (values.tools === undefined || values.queries === undefined) return '--tools and --queries are required';
  const ks = values.k.split(',').map((k) => Number(k.trim()));
  if (ks.length === 0 || !ks.every((k) => Number.isInteger(k) && k > 0)) return `--k must list positive integers, got "${values.k}"`;
  return { tools: values.tools, queries: values.queries, ks, json: values.json, ...(values.subset ? { subset: values.subset } : {}) };
}

/** Both rankings' metrics over one retrieval set. */
export interface EvalReport {
  readonly tools: number;
  readonly queries: number;
  readonly skippedLines: number;
  readonly ks: readonly number[];
  readonly toolshelf: MetricSummary;
  readonly plainBm25: MetricSummary;
}

/** Runs both rankings over already-read file texts. Pure apart from CPU time. */
export function evaluate(toolsText: string, queriesText: string, ks: readonly number[], subset?: string): EvalReport {
  const tools = parseTools(toolsText);
  const queries = parseQueries(queriesText);
  const judged = queries.items.filter((query) => subset === undefined || query.subset === subset);
  const depth = Math.max(10, ...ks);
  const index = buildSearchIndex(tools.items.map(toCatalogEntry));
  const plain = buildPlainBm25(tools.items, propertyText);
  return {
    tools: tools.items.length,
    queries: judged.length,
    skippedLines: tools.problems.length + queries.problems.length,
    ks,
    toolshelf: summarise(judged, ks, (query) => index.search(query, depth).map((hit) => hit.name)),
    plainBm25: summarise(judged, ks, (query) => plain(query, depth)),
  };
}

function formatTable(report: EvalReport): string[] {
  const row = (label: string, ours: number, plain: number): string =>
    `| ${label.padEnd(9)} | ${ours.toFixed(3).padStart(9)} | ${plain.toFixed(3).padStart(10)} | ${(ours - plain >= 0 ? '+' : '') + (ours - plain).toFixed(3)} |`;
  return [
    `${report.tools} tools, ${report.queries} queries${report.skippedLines > 0 ? `, ${report.skippedLines} malformed lines skipped` : ''}`,
    '| metric    | toolshelf | plain BM25 | delta |',
    '|-----------|----------:|-----------:|------:|',
    ...report.ks.map((k) => row(`Recall@${k}`, report.toolshelf.recall[k] ?? 0, report.plainBm25.recall[k] ?? 0)),
    row('nDCG@10', report.toolshelf.ndcg10, report.plainBm25.ndcg10),
    row('MRR@10', report.toolshelf.mrr10, report.plainBm25.mrr10),
  ];
}

/**
 * The `eval` command. Returns the exit code: 0 on success, 2 on a usage error, 1 when a file
 * cannot be read or holds no usable tool or query. Writes lines through `out` (stdout in cli.ts).
 */
export async function runEval(argv: string[], out: (line: string) => void): Promise<number> {
  const args = parseEvalArgs(argv);
  if (typeof args === 'string') {
    out(`${args}\n${USAGE}`);
    return 2;
  }
  let texts: [string, string];
  try {
    texts = await Promise.all([readFile(args.tools, 'utf8'), readFile(args.queries, 'utf8')]);
  } catch (error) {
    out(`cannot read input: ${(error as Error).message}`);
    return 1;
  }
  const report = evaluate(texts[0], texts[1], args.ks, args.subset);
  if (report.tools === 0 || report.queries === 0) {
    out(`nothing to evaluate: ${report.tools} tools, ${report.queries} queries`);
    return 1;
  }
  if (args.json) out(JSON.stringify(report));
  else for (const line of formatTable(report)) out(line);
  return 0;
}
