/**
 * `toolshelf search "QUERY" [--limit N] [--config FILE] [--json]`: what the model would get from
 * tool_search, from the user's own config. Connects the upstreams (openShelf), runs the shelf's own
 * search with tool_search's limit default and clamp, prints the matches or the "no match" note, and
 * ends every upstream. Owns flag parsing and printing only: ranking is the shelf's, the answer's
 * shape is the gateway's (`searchResult`), so `--json` prints exactly tool_search's structuredContent.
 * Source: docs/cli.md (`search`); docs/tools.md (tool_search input, limit clamp, answer), docs/search.md (logs on stderr).
 */
import { parseArgs } from 'node:util';
import type { CatalogEntry } from '../catalog/types.js';
import type { Config } from '../config/types.js';
import { buildSearchIndex } from '../discovery/searchIndex.js';
import type { SemanticEngine } from '../discovery/semantic/engine.js';
import { processSemanticEngine } from '../discovery/semantic/processEngine.js';
import { requiredSignature } from '../discovery/signature.js';
import { parseSearchArgs } from '../gateway/bridgeTools.js';
import { NAMED_NOTE, searchResult, summaryOf, type SearchAnswer } from '../gateway/searchAnswer.js';
import type { SearchOutcome } from '../gateway/types.js';
import type { BuiltShelf } from '../shelf/build.js';
import { openShelf, StartupError, type OpenShelf } from '../shelf/live.js';
import { createLogger } from '../trace/log.js';
import type { LogLevel } from '../trace/log.js';
import { resolve } from 'node:path';
import { stateDir } from '../lib/stateDir.js';
import { argumentError, type ArgOptions, chooseConfig, CONFIG_HELP, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, exitOnSignal, loadOrReport, logLevelHelp, noUpstreamProblem, parseLogLevel, VERSION } from './common.js';

/** The command's help text (printed with `--help`, and after a usage error on stderr). */
export const SEARCH_USAGE = `Usage: toolshelf search "QUERY" [--limit N] [--config FILE] [--json] [--log-level LEVEL]

Runs tool_search as the model would, over the upstreams in the config, and prints what it returns.
  --limit N      how many tools (default and clamp from discovery.defaultLimit / maxLimit: 5, 1..20)
  ${CONFIG_HELP}
  --json         print exactly tool_search's structuredContent: {"tools":[{name, description, parameters} or {name, summary}], "note"?}
  ${logLevelHelp('warn')}
Exit codes: 0 search done (with or without matches), 1 start-up refused or no upstream connected,
2 bad usage or config.`;

/** Signals that end a search early; exit code 128 + signal number, as a shell reports it. */
const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

interface SearchArgs {
  readonly query: string;
  readonly limit?: number;
  readonly config?: string;
  readonly json: boolean;
  readonly help: boolean;
  readonly level: LogLevel;
}

const SEARCH_OPTIONS = {
  limit: { type: 'string', short: 'n' },
  config: { type: 'string', short: 'c' },
  json: { type: 'boolean', default: false },
  'log-level': { type: 'string', default: 'warn' },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies ArgOptions;

function parseSearchFlags(argv: string[]): SearchArgs | string {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: SEARCH_OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return argumentError(error, SEARCH_OPTIONS);
  }
  const { values, positionals } = parsed;
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (values.limit?.trim() === '' || !Number.isInteger(limit))) return `--limit takes an integer, got "${values.limit}"`;
  const query = positionals.join(' ').trim();
  if (query === '' && !values.help) return 'a query is required, e.g. toolshelf search "read a file"';
  const level = parseLogLevel(values['log-level']);
  if (!level.ok) return level.error;
  return {
    query,
    json: values.json,
    help: values.help,
    level: level.value,
    ...(values.config === undefined ? {} : { config: values.config }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/**
 * One match as text: `name(required: type, …)` (`…` when it has optional parameters too, so `name()`
 * means none at all), then for a strong match the description as the model reads it, for
 * any other `(summary only)` and its one line, indented.
 */
function formatMatch(entry: CatalogEntry, rank: number, strong: boolean): string[] {
  const required = requiredSignature(entry.tool.inputSchema);
  const signature = hasOptional(entry.tool.inputSchema) ? (required === '' ? '…' : `${required}, …`) : required;
  const lines = strong ? entry.projected.description.split(/\r?\n/) : [`(summary only) ${summaryOf(entry)}`];
  return [`${rank}. ${entry.qualifiedName}(${signature})`, ...lines.map((line) => `   ${line}`.trimEnd())];
}

/** How the search ranked: the ranker, the encoder's part and any fallback, for the header. */
function rankedBy(outcome: SearchOutcome): string {
  const ranker = outcome.ranker === 'host' ? 'host ranker' : 'BM25';
  const { semantic } = outcome;
  const encoder =
    semantic === undefined ? '' : semantic.used ? ` + sentence encoder${semantic.missing > 0 ? ` (${semantic.missing} tools without a vector yet)` : ''}` : `; sentence encoder not used: ${semantic.reason ?? 'unknown'}`;
  return `${ranker}${encoder}${outcome.fallback === undefined ? '' : `, host ranker not used: ${outcome.fallback}`}`;
}

/** Human-readable answer: a header naming the ranker (and any fallback), then the matches and tool_search's note. */
function formatText(query: string, entries: readonly CatalogEntry[], outcome: SearchOutcome, strong: readonly string[]): string[] {
  const how = rankedBy(outcome);
  const { note } = searchResult(entries, query, strong).structuredContent as unknown as SearchAnswer;
  if (entries.length === 0) return [`0 matches (${how})`, note ?? ''];
  const header = `${entries.length} match${entries.length === 1 ? '' : 'es'} for "${query}" (${how}; ${strong.length} strong)`;
  const matches = entries.flatMap((entry, i) => ['', ...formatMatch(entry, i + 1, strong.includes(entry.qualifiedName))]);
  const hint = note ?? (strong.length < entries.length ? NAMED_NOTE : undefined);
  return [header, ...matches, ...(hint === undefined ? [] : ['', hint])];
}

/** Notes on stderr where the model's view differs from a plain search: no tool_search, or a clamped limit. */
function warnings(config: Config, shelf: BuiltShelf, asked: number | undefined, limit: number): string[] {
  const notes: string[] = [];
  if (!config.discovery.enabled) notes.push('discovery.enabled is false: clients get no tool_search (deferred tools stay callable by name)');
  else if (shelf.catalogue.deferred.length === 0) notes.push('no tool is deferred: clients get no tool_search');
  if (asked !== undefined && asked !== limit) notes.push(`--limit ${asked} clamped to ${limit} (tool_search allows 1..${config.discovery.maxLimit})`);
  return notes;
}

/**
 * The direct tools that would rank among the first `limit` hits for `query` if they were searchable
 * (BM25 over every advertised tool, direct and deferred together, so scores compare): tool_search
 * never returns them, since the client already lists them, and the command says so instead of
 * leaving them out silently. [] when no tool is direct.
 */
export function directMatches(shelf: Pick<BuiltShelf, 'catalogue'>, config: Pick<Config, 'discovery'>, query: string, limit: number): string[] {
  const { direct, deferred } = shelf.catalogue;
  if (direct.length === 0) return [];
  const names = new Set(direct.map((entry) => entry.qualifiedName));
  return buildSearchIndex([...direct, ...deferred], config.discovery.ranking)
    .search(query, limit)
    .map((hit) => hit.name)
    .filter((name) => names.has(name));
}

/** The note naming {@link directMatches}, or undefined when there are none. */
function directNote(names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  return `also matching, already in the client's tool list as direct (tool_search leaves direct tools out): ${names.join(', ')}`;
}

/**
 * Longest the command waits for the encoder to embed the tools that have no cached vector, in ms
 * (a start from the serving gateway's cache waits for none); past it the search ranks as tool_search
 * does meanwhile, those tools by BM25 alone, and the header says how many.
 */
const VECTORS_WAIT_MS = 120_000;

/** Resolves once `semantic` has a vector for every tracked tool, has failed, or {@link VECTORS_WAIT_MS} passed. */
async function vectorsReady(semantic: SemanticEngine): Promise<void> {
  semantic.start();
  const until = Date.now() + VECTORS_WAIT_MS;
  while (Date.now() < until && !['ready', 'failed'].includes(semantic.status().state)) await new Promise((r) => setTimeout(r, 50));
}

/** Opens the shelf, searches once, prints, closes. Upstreams are ended on every path. */
async function searchOnce(config: Config, configPath: string, args: SearchArgs, request: { query: string; limit: number }, out: (line: string) => void): Promise<number> {
  const logger = createLogger(args.level);
  const state = stateDir(process.env);
  // The serving gateway's encoder and vector cache, so the ranking is tool_search's (docs/search.md).
  // Its query waits for the model to load: every tool vector may come from the cache, the model not yet.
  const semantic = config.discovery.semantic ? processSemanticEngine(process.env, logger, state, VECTORS_WAIT_MS) : undefined;
  let opened: OpenShelf;
  try {
    // Held tools stay out of the answer as they would for a client; the pins are only read.
    opened = await openShelf(config, logger, VERSION, { waitForEveryStart: true, pins: { stateDir: state, configPath, write: false }, ...(semantic ? { semantic } : {}) });
  } catch (error) {
    logger.error(error instanceof StartupError ? error.message : ((error as Error).stack ?? String(error)));
    return EXIT_FAILURE;
  }
  try {
    const nothing = noUpstreamProblem(opened.summary().upstreams);
    if (nothing !== undefined) return logger.error(nothing), EXIT_FAILURE;
    const shelf = opened.current();
    for (const note of warnings(config, shelf, args.limit, request.limit)) logger.warn(note);
    if (semantic) await vectorsReady(semantic);
    const outcome = await shelf.search(request.query, request.limit);
    // Exactly what dispatch does: catalogue names only, deferred only (docs/tools.md).
    const entries = outcome.matched.map((name) => shelf.catalogue.get(name)).filter((e): e is CatalogEntry => e?.exposure === 'deferred');
    const strong = entries.filter((e) => outcome.strong.includes(e.qualifiedName)).map((e) => e.qualifiedName);
    const direct = directNote(directMatches(shelf, config, request.query, request.limit));
    if (args.json) {
      out(JSON.stringify(searchResult(entries, request.query, strong).structuredContent));
      // stdout stays exactly tool_search's structuredContent.
      if (direct !== undefined) process.stderr.write(`toolshelf: ${direct}\n`);
    } else {
      for (const line of formatText(request.query, entries, outcome, strong)) out(line);
      if (direct !== undefined) out(`\n${direct}`);
    }
    return EXIT_OK;
  } finally {
    await opened.close();
  }
}

/**
 * The `search` command. Prints through `out` (stdout, from cli.ts: matches, or JSON with `--json`); logs go to stderr at
 * `--log-level` (default warn). Returns the exit code: 0 when the search ran (matches or not), 1 when start-up was
 * refused (e.g. a `prefix: false` name collision) or no upstream connected, 2 on bad usage or a bad config. A signal during
 * start-up exits at once with 128 + its number; openShelf's exit hook SIGKILLs the upstream groups.
 */
export async function runSearch(argv: string[], out: (line: string) => void): Promise<number> {
  const err = (text: string): void => void process.stderr.write(text);
  const args = parseSearchFlags(argv);
  if (typeof args === 'string') return err(`toolshelf: ${args}\n${SEARCH_USAGE}\n`), EXIT_USAGE;
  if (args.help) return out(SEARCH_USAGE), EXIT_OK;
  const configPath = chooseConfig(args.config, process.cwd(), err);
  const config = loadOrReport(configPath, err);
  if (!config) return EXIT_USAGE;
  // The gateway's own argument check: same default, same clamp (docs/tools.md).
  const parsed = parseSearchArgs({ query: args.query, ...(args.limit === undefined ? {} : { limit: args.limit }) }, config.discovery.defaultLimit, config.discovery.maxLimit);
  if ('error' in parsed) return err(`toolshelf: ${parsed.error}\n`), EXIT_USAGE;
  return exitOnSignal(() => searchOnce(config, resolve(configPath), args, parsed, out), (signal) => SIGNAL_EXIT[signal] ?? EXIT_FAILURE);
}

/** Whether `inputSchema` declares a top-level property its `required` does not list. */
function hasOptional(inputSchema: unknown): boolean {
  const schema = inputSchema as { properties?: unknown; required?: unknown } | null;
  if (schema === null || typeof schema !== 'object' || schema.properties === null || typeof schema.properties !== 'object') return false;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.keys(schema.properties).some((name) => !required.has(name));
}
