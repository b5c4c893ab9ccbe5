/**
 * `toolshelf inspect [--config FILE] [--json]`: connects the upstreams as `serve` would, prints what
 * each server costs on the wire (tools by exposure, canonical vs projected schema bytes, the highest
 * compaction rung, estimated tokens), the first tools/list all-direct vs as configured, the tools whose
 * surface cannot fit the budget, and the manifest as a client will see it; then ends every upstream.
 * Owns argument parsing, the report and printing; sizes come from `shelf/summary.ts` and the catalogue.
 * Source: docs/cli.md (`inspect`), docs/tools.md (compaction, manifest), docs/benchmarks.md (first tools/list).
 */
import { parseArgs } from 'node:util';
import { servedCounts } from '../catalog/build.js';
import type { CatalogEntry } from '../catalog/types.js';
import type { Config } from '../config/types.js';
import { estimateTokens, textBytes } from '../schema/measure.js';
import type { StartSummary } from '../shelf/summary.js';
import { DESCRIPTION_LIMITS } from '../gateway/clients.js';
import { legacyTools, modernTools } from '../gateway/toolList.js';
import { sessionSettings } from '../gateway/sessionOptions.js';
import { TOOL_SEARCH } from '../gateway/bridgeTools.js';
import { openShelf, StartupError, type OpenShelf } from '../shelf/live.js';
import type { BuiltShelf } from '../shelf/build.js';
import { createLogger } from '../trace/log.js';
import type { UpstreamSummary } from '../upstream/pool.js';
import { argumentError, type ArgOptions, chooseConfig, CONFIG_HELP, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, exitOnSignal, loadOrReport, logLevelHelp, noUpstreamProblem, parseLogLevel, VERSION } from './common.js';
import { resolve } from 'node:path';
import { stateDir } from '../lib/stateDir.js';
import { printableLine } from '../lib/printable.js';
import type { LogLevel } from '../trace/log.js';
import { counted } from '../lib/plural.js';

const USAGE = `Usage: toolshelf inspect [--config FILE] [--json] [--log-level LEVEL]

Connects every MCP server in the config, prints what each costs on the wire, then exits.
  ${CONFIG_HELP}
  --json         one JSON object instead of tables
  ${logLevelHelp('warn')}
Exit codes: 0 report printed and every upstream started, 1 start-up refused or no upstream connected,
2 bad usage or config, 3 report printed but an upstream failed to start (named on stderr).`;

/** One advertised or searchable tool. Bytes are UTF-8 bytes of compact JSON of its inputSchema. */
export interface InspectedTool {
  readonly name: string;
  readonly exposure: 'direct' | 'deferred';
  readonly canonicalBytes: number;
  readonly projectedBytes: number;
  /** Highest compaction rung applied (0 = none; the ladder in docs/tools.md). */
  readonly rung: number;
  /** Estimated tokens of the projected schema (`estimateTokens`). */
  readonly tokens: number;
  /** The upstream description was clipped to the description budget. */
  readonly descriptionClipped: boolean;
  /** The upstream gave a non-blank description (else the table says `none`). */
  readonly hasDescription: boolean;
  /** False when even the top-level surface exceeds the schema budget. */
  readonly withinBudget: boolean;
}

/** One upstream: its connection state, counts by exposure (hidden included) and its tools. */
export interface InspectedServer {
  readonly key: string;
  readonly status: UpstreamSummary['status'];
  readonly error?: string;
  readonly direct: number;
  readonly deferred: number;
  readonly hidden: number;
  readonly canonicalBytes: number;
  readonly projectedBytes: number;
  readonly maxRung: number;
  readonly tokens: number;
  readonly tools: readonly InspectedTool[];
  /**
   * Tools held for review against this config's pins (docs/security.md): out of the counts above and
   * of the manifest. `findings` are the scanner's kinds and places.
   */
  readonly held: readonly { readonly tool: string; readonly reason: string; readonly findings: readonly string[] }[];
  /** True when the scanner held the server's instructions out of toolshelf's own. */
  readonly instructionsHeld: boolean;
}

/** What `inspect --json` prints. Bytes: UTF-8 bytes of compact JSON; tokens: `estimateTokens`. */
export interface InspectReport {
  readonly version: string;
  readonly servers: readonly InspectedServer[];
  readonly totals: {
    readonly direct: number;
    readonly deferred: number;
    readonly hidden: number;
    /** First tools/list with every tool direct and canonical, and as configured (bridge tools included). */
    readonly allDirect: { readonly bytes: number; readonly tokens: number };
    readonly configured: { readonly bytes: number; readonly tokens: number };
    /** `1 - configured/allDirect`, in percent, one decimal. */
    readonly savedPercent: number;
  };
  /** Tools whose top-level surface alone exceeds the schema budget (docs/tools.md); advertised as that surface. */
  readonly overBudget: readonly { readonly name: string; readonly server: string; readonly canonicalBytes: number; readonly projectedBytes: number }[];
  /** tool_search's description exactly as an unnamed 2025-era client receives it; null when it gets no tool_search. */
  readonly manifest: ManifestSeen | null;
  /** tool_search's description as each kind of client receives it, clients with the same text together; [] without tool_search. */
  readonly manifests: readonly ManifestSeen[];
}

/** One tool_search description as sent, and the kinds of client it is sent to. Bytes: UTF-8; tokens: `estimateTokens`. */
export interface ManifestSeen {
  readonly clients: readonly string[];
  readonly text: string;
  readonly bytes: number;
  readonly tokens: number;
}

/**
 * The kinds of client whose tool_search description can differ, each with the client name that
 * stands for it (gateway/clients.ts): call_tool named for clients that may ignore list_changed, a
 * length limit for some, another preamble in the 2026-07-28 era.
 */
const CLIENT_KINDS: readonly { readonly label: string; readonly era: 'legacy' | 'modern'; readonly name: string | undefined }[] = [
  { label: '2025-era client, unnamed or not known to honour list_changed (offered call_tool)', era: 'legacy', name: undefined },
  { label: '2025-era client known to honour list_changed (e.g. Visual Studio Code)', era: 'legacy', name: 'Visual Studio Code' },
  ...Object.entries(DESCRIPTION_LIMITS).map(([name, limit]) => ({ label: `2025-era ${name} (descriptions up to ${limit} characters)`, era: 'legacy' as const, name })),
  { label: '2026-07-28 client', era: 'modern', name: undefined },
];

/** Exit code of a report printed while an upstream failed to start. */
export const EXIT_UPSTREAM_FAILED = 3;

/** What the text report's columns and words mean, printed under the tables. */
const TERMS = [
  '## Terms',
  '',
  '- canonical B / projected B: bytes of the inputSchema as the upstream gave it / as clients are sent it.',
  '- rung: the last step of schema compaction needed to fit the schema budget: 0 none, 1 unused definitions dropped,',
  '  2 nested descriptions dropped, 3 property descriptions dropped, 4 definition tables dropped, 5 objects nested',
  '  deeper than three levels collapsed, 6 anyOf/oneOf/allOf dropped.',
  '- description: kept as the upstream gave it, clipped (cut to the description budget), or none (the upstream gave none).',
  '- all direct: what a client receives from tools/list with the same upstreams registered directly (one result each, summed).',
];

const INSPECT_OPTIONS = {
  config: { type: 'string', short: 'c' },
  json: { type: 'boolean', default: false },
  'log-level': { type: 'string', default: 'warn' },
  help: { type: 'boolean', short: 'h' },
} satisfies ArgOptions;

/**
 * Runs `inspect`, printing the report through `out` (stdout, from cli.ts); returns the exit code
 * (0 ok, 1 start-up refused or no upstream connected, 2 bad flags or config, 3 report printed but an
 * upstream failed to start); exits 130 on a signal.
 */
export async function runInspect(argv: string[], out: (text: string) => void): Promise<number> {
  const err = (text: string): void => void process.stderr.write(text);
  let values: { config?: string; json: boolean; 'log-level': string; help?: boolean };
  try {
    values = parseArgs({
      args: argv,
      options: INSPECT_OPTIONS,
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return err(`toolshelf: ${argumentError(error, INSPECT_OPTIONS)}\n${USAGE}\n`), EXIT_USAGE;
  }
  if (values.help) return out(USAGE), EXIT_OK;
  const level = parseLogLevel(values['log-level']);
  if (!level.ok) return err(`toolshelf: ${level.error}\n`), EXIT_USAGE;
  const path = chooseConfig(values.config, process.cwd(), err);
  const config = loadOrReport(path, err);
  if (!config) return EXIT_USAGE;
  return exitOnSignal(() => inspect(config, resolve(path), values.json, level.value, out, err), () => EXIT_INTERRUPTED);
}

/** 128 + SIGINT, the shell convention for a run cut short. */
const EXIT_INTERRUPTED = 130;

/** Opens the shelf, prints the report, and ends every upstream whatever happens. */
async function inspect(config: Config, configPath: string, json: boolean, level: LogLevel, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let opened: OpenShelf;
  try {
    // warn by default: upstream chatter (logged at debug) and start-up info stay out of the report.
    // The pins are read, never written: inspect judges what it lists as a gateway would.
    opened = await openShelf(config, createLogger(level), VERSION, { waitForEveryStart: true, pins: { stateDir: stateDir(process.env), configPath, write: false } });
  } catch (error) {
    err(`toolshelf: ${error instanceof StartupError ? error.message : ((error as Error).stack ?? String(error))}\n`);
    return EXIT_FAILURE;
  }
  try {
    const nothing = noUpstreamProblem(opened.summary().upstreams);
    if (nothing !== undefined) return err(`toolshelf: ${nothing}\n`), EXIT_FAILURE;
    const report = inspectReport(config, opened);
    out(json ? JSON.stringify(report, null, 2) : formatReport(report).replace(/\n$/, ''));
    return report.servers.some((server) => server.status === 'failed' || server.status === 'down') ? EXIT_UPSTREAM_FAILED : EXIT_OK;
  } finally {
    await opened.close();
  }
}

/** Builds the report from an open shelf. Pure apart from reading the shelf's current snapshot. */
function inspectReport(config: Config, opened: Pick<OpenShelf, 'current' | 'summary' | 'trust'>): InspectReport {
  const trust = opened.trust();
  const shelf = opened.current();
  const summary: StartSummary = opened.summary();
  const { catalogue } = shelf;
  const servers = summary.upstreams.map((upstream): InspectedServer => {
    const tools = catalogue.entries.filter((e) => e.server === upstream.key).map(inspectTool);
    const counts = servedCounts(catalogue, upstream.key);
    const canonicalBytes = sum(tools, (t) => t.canonicalBytes);
    const projectedBytes = sum(tools, (t) => t.projectedBytes);
    return {
      key: upstream.key,
      status: upstream.status,
      ...(upstream.error !== undefined ? { error: upstream.error } : {}),
      ...counts,
      canonicalBytes,
      projectedBytes,
      maxRung: Math.max(0, ...tools.map((t) => t.rung)),
      tokens: estimateTokens(projectedBytes),
      tools,
      held: [...(trust.held.get(upstream.key) ?? [])].map(([tool, version]) => ({ tool, reason: version.reason, findings: version.findings.map((f) => `${f.kind} at ${f.where}`) })),
      instructionsHeld: trust.instructionsHeld.has(upstream.key),
    };
  });
  const manifests = manifestsSeen(config, shelf);
  return {
    version: VERSION,
    servers,
    totals: {
      direct: summary.direct,
      deferred: summary.deferred,
      hidden: summary.hidden,
      allDirect: { bytes: summary.allDirectBytes, tokens: summary.allDirectTokens },
      configured: { bytes: summary.firstListBytes, tokens: summary.firstListTokens },
      savedPercent: summary.allDirectBytes > 0 ? Math.round((1 - summary.firstListBytes / summary.allDirectBytes) * 1000) / 10 : 0,
    },
    overBudget: catalogue.entries
      .filter((e) => !e.projected.withinBudget)
      .map((e) => ({ name: e.qualifiedName, server: e.server, canonicalBytes: e.projected.canonicalBytes, projectedBytes: e.projected.projectedBytes })),
    manifest: manifests.find((m) => m.clients.includes(CLIENT_KINDS[0]!.label)) ?? null,
    manifests,
  };
}

/**
 * tool_search's description as each of {@link CLIENT_KINDS} receives it in its first tools/list
 * (built by the functions that build that list), kinds with the same text together, in kind order.
 */
function manifestsSeen(config: Config, shelf: BuiltShelf): ManifestSeen[] {
  const settings = sessionSettings(config);
  const seen = new Map<string, string[]>();
  for (const kind of CLIENT_KINDS) {
    const tools = kind.era === 'legacy' ? legacyTools(shelf, settings, kind.name, []) : modernTools({ shelf: () => shelf, settings }, kind.name);
    const text = tools.find((tool) => tool.name === TOOL_SEARCH)?.description;
    if (text !== undefined) seen.set(text, [...(seen.get(text) ?? []), kind.label]);
  }
  return [...seen].map(([text, clients]) => {
    const bytes = textBytes(text);
    return { clients, text, bytes, tokens: estimateTokens(bytes) };
  });
}

function inspectTool(entry: CatalogEntry): InspectedTool {
  const { projected, tool } = entry;
  const upstreamDescription = typeof tool.description === 'string' ? tool.description : '';
  return {
    name: entry.qualifiedName,
    exposure: entry.exposure === 'direct' ? 'direct' : 'deferred',
    canonicalBytes: projected.canonicalBytes,
    projectedBytes: projected.projectedBytes,
    rung: projected.rung,
    tokens: estimateTokens(projected.projectedBytes),
    descriptionClipped: upstreamDescription.trim() !== '' && projected.description !== upstreamDescription,
    hasDescription: upstreamDescription.trim() !== '',
    withinBudget: projected.withinBudget,
  };
}

/** The report as markdown-style tables: one per server, then totals, over-budget tools and the manifest. */
function formatReport(report: InspectReport): string {
  const lines: string[] = [];
  for (const server of report.servers) lines.push(...serverTable(server), '');
  const { totals } = report;
  lines.push(
    `## Totals`,
    '',
    `tools: ${totals.direct} direct, ${totals.deferred} deferred, ${totals.hidden} hidden`,
    '',
    '| first tools/list | bytes | ~tokens |',
    '|---|---:|---:|',
    `| all direct (the upstreams registered directly) | ${n(totals.allDirect.bytes)} | ${n(totals.allDirect.tokens)} |`,
    `| as configured | ${n(totals.configured.bytes)} | ${n(totals.configured.tokens)} |`,
    '',
    totals.savedPercent >= 0 ? `${totals.savedPercent}% smaller as configured.` : `${-totals.savedPercent}% larger as configured.`,
    '',
  );
  lines.push(...overBudgetLines(report), '');
  if (report.manifests.length === 0) lines.push('## Manifest', '', 'none: nothing is deferred or discovery is disabled, so there is no tool_search.');
  else {
    lines.push('## Manifest: the tool_search description each kind of client receives', '');
    for (const seen of report.manifests) lines.push(`### ${seen.clients.join('; ')}: ${n(seen.bytes)} bytes, ~${n(seen.tokens)} tokens`, '', seen.text, '');
  }
  lines.push(...TERMS);
  return `${lines.join('\n')}\n`;
}

function serverTable(server: InspectedServer): string[] {
  const state = server.status === 'ready' ? '' : ` (${server.status}${server.error ? `: ${server.error}` : ''})`;
  const head = [
    `## ${server.key}${state}`,
    '',
    `${server.direct} direct, ${server.deferred} deferred, ${server.hidden} hidden; schemas ${n(server.canonicalBytes)} → ${n(server.projectedBytes)} bytes (~${n(server.tokens)} tokens), highest rung ${server.maxRung}`,
  ];
  for (const held of server.held) {
    const why = held.reason === 'changed' ? 'changed since it was pinned' : held.reason === 'new' ? 'new, not pinned yet' : `flagged: ${held.findings.join(', ')}`;
    head.push(`held for review: ${printableLine(held.tool, 200)} (${why}); see toolshelf review`);
  }
  if (server.instructionsHeld) head.push('held for review: its instructions (flagged by the scanner); see toolshelf review');
  if (server.tools.length === 0) return head;
  const rows = server.tools.map(
    (t) =>
      `| ${t.name} | ${t.exposure} | ${n(t.canonicalBytes)} | ${n(t.projectedBytes)}${t.withinBudget ? '' : ' (over budget)'} | ${t.rung} | ${n(t.tokens)} | ${t.descriptionClipped ? 'clipped' : t.hasDescription ? 'kept' : 'none'} |`,
  );
  return [...head, '', '| tool | exposure | canonical B | projected B | rung | ~tokens | description |', '|---|---|---:|---:|---:|---:|---|', ...rows];
}

function overBudgetLines(report: InspectReport): string[] {
  if (report.overBudget.length === 0) return ['Every schema fits the budget (or compaction is off).'];
  return [
    `## Over budget: ${counted(report.overBudget.length, 'tool')} whose top-level surface alone exceeds the schema budget; advertised as that surface, validated against the canonical schema`,
    '',
    ...report.overBudget.map((o) => `- ${o.name}: ${n(o.canonicalBytes)} → ${n(o.projectedBytes)} bytes`),
  ];
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((total, item) => total + of(item), 0);
}

function n(value: number): string {
  return value.toLocaleString('en-US');
}

