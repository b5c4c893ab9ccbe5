/**
 * `toolshelf eval --tools FILE --queries FILE [--k 1,5,10] [--subset NAME] [--json]`: retrieval
 * quality of the server's own search index over a JSONL pair (shared/data/retrieval format), beside
 * a plain BM25 baseline on the same text. Owns argument parsing, file reading and printing; the
 * index, metrics and baseline live in `discovery/`. Prints through `out` only; `cli.ts` wires it.
 * Source: docs/cli.md (`toolshelf eval`); shared/data/README.md (formats, metrics, baseline).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { summarise, type MetricSummary } from '../discovery/metrics.js';
import { buildPlainBm25 } from '../discovery/plainBm25.js';
import { parseQueries, parseTools, toCatalogEntry } from '../discovery/retrievalSet.js';
import { buildSearchIndex, propertyText } from '../discovery/searchIndex.js';
import { argumentError, type ArgOptions } from './common.js';
import { counted } from '../lib/plural.js';

const USAGE = 'usage: toolshelf eval --tools FILE --queries FILE [--k 1,5,10] [--subset NAME] [--json]';

interface EvalArgs {
  readonly tools: string;
  readonly queries: string;
  readonly ks: number[];
  readonly subset?: string;
  readonly json: boolean;
}

const EVAL_OPTIONS = {
  tools: { type: 'string' },
  queries: { type: 'string' },
  k: { type: 'string', default: '1,5,10' },
  subset: { type: 'string' },
  json: { type: 'boolean', default: false },
} satisfies ArgOptions;

function parseEvalArgs(argv: string[]): EvalArgs | string {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: EVAL_OPTIONS }));
  } catch (error) {
    return argumentError(error, EVAL_OPTIONS);
  }
  if (values.tools === undefined || values.queries === undefined) return '--tools and --queries are required';
  const ks = values.k.split(',').map((k) => Number(k.trim()));
  if (ks.length === 0 || !ks.every((k) => Number.isInteger(k) && k > 0)) return `--k must list positive integers, got "${values.k}"`;
  return { tools: values.tools, queries: values.queries, ks, json: values.json, ...(values.subset ? { subset: values.subset } : {}) };
}

/** A line of an input file that was not used, and why. `line` is 1-based. */
export interface SkippedLine {
  readonly file: 'tools' | 'queries';
  readonly line: number;
  readonly message: string;
}

/** Both rankings' metrics over one retrieval set. */
export interface EvalReport {
  readonly tools: number;
  readonly queries: number;
  readonly skippedLines: number;
  /** Every skipped line with its reason. */
  readonly skipped: readonly SkippedLine[];
  /** Query count per subset name over the whole queries file, whatever `--subset` chose. */
  readonly subsets: Readonly<Record<string, number>>;
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
  const counts = new Map<string, number>();
  for (const query of queries.items) if (query.subset !== undefined) counts.set(query.subset, (counts.get(query.subset) ?? 0) + 1);
  const skipped = [
    ...tools.problems.map((p): SkippedLine => ({ file: 'tools', ...p })),
    ...queries.problems.map((p): SkippedLine => ({ file: 'queries', ...p })),
  ];
  return {
    tools: tools.items.length,
    queries: judged.length,
    skippedLines: skipped.length,
    skipped,
    subsets: Object.fromEntries(counts),
    ks,
    toolshelf: summarise(judged, ks, (query) => index.search(query, depth).map((hit) => hit.name)),
    plainBm25: summarise(judged, ks, (query) => plain(query, depth)),
  };
}

function formatTable(report: EvalReport): string[] {
  const row = (label: string, ours: number, plain: number): string =>
    `| ${label.padEnd(9)} | ${ours.toFixed(3).padStart(9)} | ${plain.toFixed(3).padStart(10)} | ${signed(ours - plain)} |`;
  return [
    `${counted(report.tools, 'tool')}, ${counted(report.queries, 'query', 'queries')}${report.skippedLines > 0 ? `, ${counted(report.skippedLines, 'malformed line')} skipped` : ''}`,
    '| metric    | toolshelf | plain BM25 | delta |',
    '|-----------|----------:|-----------:|------:|',
    ...report.ks.map((k) => row(`Recall@${k}`, report.toolshelf.recall[k] ?? 0, report.plainBm25.recall[k] ?? 0)),
    row('nDCG@10', report.toolshelf.ndcg10, report.plainBm25.ndcg10),
    row('MRR@10', report.toolshelf.mrr10, report.plainBm25.mrr10),
  ];
}

/** Skipped lines reported one by one, at most this many; the rest as a count. */
const MAX_SKIPPED_SHOWN = 10;

/** Each skipped line as `tools line 4 skipped: invalid JSON: …`, at most {@link MAX_SKIPPED_SHOWN}. */
function skippedLines(report: EvalReport, files: { tools: string; queries: string }): string[] {
  const lines = report.skipped.slice(0, MAX_SKIPPED_SHOWN).map((s) => `toolshelf: ${files[s.file]} line ${s.line} skipped: ${s.message}`);
  const more = report.skipped.length - MAX_SKIPPED_SHOWN;
  return more > 0 ? [...lines, `toolshelf: … and ${more} more skipped lines`] : lines;
}

/** Why `--subset` matches no query: it names the subsets the file has, with their query counts. */
function unknownSubset(subset: string, report: EvalReport, file: string): string {
  const names = Object.entries(report.subsets).map(([name, count]) => `${name} (${count} queries)`);
  const known = names.length > 0 ? `the subsets in ${file} are: ${names.join(', ')}` : `no query in ${file} has a "subset" field`;
  return `toolshelf: no query has subset "${subset}"; ${known}`;
}

/**
 * The `eval` command. Returns the exit code: 0 on success, 2 on a usage error (an unknown `--subset`
 * too), 1 when a file cannot be read or holds no usable tool or query. Writes the report through
 * `out` (stdout in cli.ts), and each skipped input line with its reason through `err` (stderr).
 */
export async function runEval(argv: string[], out: (line: string) => void, err: (line: string) => void = (line) => void process.stderr.write(`${line}\n`)): Promise<number> {
  const args = parseEvalArgs(argv);
  if (typeof args === 'string') {
    err(`toolshelf: ${args}\n${USAGE}`);
    return 2;
  }
  let texts: [string, string];
  try {
    texts = await Promise.all([readFile(args.tools, 'utf8'), readFile(args.queries, 'utf8')]);
  } catch (error) {
    err(`toolshelf: cannot read input: ${(error as Error).message}`);
    return 1;
  }
  const report = evaluate(texts[0], texts[1], args.ks, args.subset);
  for (const line of skippedLines(report, args)) err(line);
  if (args.subset !== undefined && !Object.hasOwn(report.subsets, args.subset)) {
    err(unknownSubset(args.subset, report, args.queries));
    return 2;
  }
  if (report.tools === 0 || report.queries === 0) {
    out(`nothing to evaluate: ${counted(report.tools, 'tool')}, ${counted(report.queries, 'query', 'queries')}`);
    return 1;
  }
  if (args.json) out(JSON.stringify(report));
  else for (const line of formatTable(report)) out(line);
  return 0;
}

/** `delta` to 3 decimals with its sign, `+0.000` for what rounds to zero (not `-0.000`). */
function signed(delta: number): string {
  const text = delta.toFixed(3);
  return Number(text) === 0 ? '+0.000' : `${delta > 0 ? '+' : ''}${text}`;
}
