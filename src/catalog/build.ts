/**
 * Builds the immutable catalogue snapshot from the config and each upstream's tools.
 * Pure: projection is passed in. Source: docs/architecture.md, docs/configuration.md, docs/tools.md.
 */
import type { Config } from '../config/types.js';
import { decideExposure } from './exposure.js';
import { assignNames, serverPrefixes, type GivenNames, type NameCollision } from './naming.js';
import type { CatalogEntry, Exposure, ProjectedTool, UpstreamTool } from './types.js';
import { addRemoved, noneRemoved, removedTotal, type RemovedCounts } from '../trust/clean.js';
import { cleanTool } from '../trust/cleanTool.js';

/** Projects one canonical tool for the wire (schema/ supplies it; docs/tools.md). */
export type ProjectFn = (tool: UpstreamTool, server: string) => ProjectedTool;

/** Tool counts by exposure, for summaries and `inspect`. */
export interface ExposureCounts {
  direct: number;
  deferred: number;
  hidden: number;
}

/** An immutable snapshot of every admitted tool with its lookups. Replaced whole on any change. */
export interface Catalogue {
  /** Direct and deferred entries sorted by qualified name. Hidden tools are not here at all (docs/tools.md, "Calls"). */
  readonly entries: readonly CatalogEntry[];
  readonly direct: readonly CatalogEntry[];
  readonly deferred: readonly CatalogEntry[];
  /**
   * Counts per server key: `direct` and `deferred` count the tools served (a held or dropped tool is in
   * no list, so in neither), `hidden` the tools its rules hid.
   */
  readonly counts: ReadonlyMap<string, ExposureCounts>;
  /** Name clashes that involve a `prefix: false` server (docs/configuration.md), new in this snapshot. */
  readonly collisions: readonly NameCollision[];
  /** Every qualified name given out so far and its holder: pass it to the next build. */
  readonly names: GivenNames;
  /**
   * Tools left out because their declaration could not be projected (nested too deeply to serialise, or
   * an inputSchema that accepts no object), each with a sentence saying why.
   */
  readonly dropped: readonly { readonly server: string; readonly tool: string; readonly reason: string }[];
  /** Per server key, what cleaning removed from its admitted tools' text; servers with nothing removed are absent. */
  readonly cleaned: ReadonlyMap<string, RemovedCounts>;
  /**
   * Tools held for review (docs/security.md, "Pins, quarantine and review"): named like the others, so
   * a call or search that reaches one is told why, but in no list, index or manifest.
   */
  readonly held: readonly HeldEntry[];
  /** The held tool a qualified name names; undefined for every other name. */
  heldTool(qualifiedName: string): HeldEntry | undefined;
  /** The callable entry for a qualified name; undefined for unknown, hidden and held names. */
  get(qualifiedName: string): CatalogEntry | undefined;
  /** The entry for an upstream tool, by server key and upstream name. */
  find(server: string, upstreamName: string): CatalogEntry | undefined;
}

/** A tool held for review: its name as the client would see it, where it lives, and why it is held. */
export interface HeldEntry {
  readonly qualifiedName: string;
  readonly server: string;
  readonly upstreamName: string;
  /** `changed`, `new` or `flagged` (trust/judge.ts). */
  readonly reason: string;
}

/** Why a tool of `server` is held, or undefined when it is served. */
export type HeldFn = (server: string, tool: string) => string | undefined;

/**
 * Builds a catalogue. `toolsByServer` maps server key → tools as listed (servers absent from the
 * config are ignored). Exposure comes from the rules (docs/configuration.md), names from {@link assignNames}:
 * `previous` (the last snapshot's `names`) keeps every name given out routing to the same tool.
 */
export function buildCatalogue(
  config: Pick<Config, 'mcpServers' | 'exposure' | 'naming'>,
  toolsByServer: ReadonlyMap<string, readonly UpstreamTool[]>,
  project: ProjectFn,
  previous?: GivenNames,
  held: HeldFn = () => undefined,
): Catalogue {
  const counts = new Map<string, ExposureCounts>();
  const visible: { server: string; tool: UpstreamTool; exposure: Exposure; keywords: readonly string[] }[] = [];
  for (const [server, tools] of toolsByServer) {
    const settings = config.mcpServers[server];
    if (!settings) continue;
    const tally: ExposureCounts = { direct: 0, deferred: 0, hidden: 0 };
    counts.set(server, tally);
    for (const tool of tools) {
      const decision = decideExposure(tool.name, settings.tools, settings.exposure, config.exposure);
      // A visible tool is counted once it is served (below): held and dropped ones are in no list.
      if (decision.exposure === 'hidden') tally.hidden += 1;
      else visible.push({ server, tool, ...decision });
    }
  }
  const naming = assignNames(
    visible.map((v) => ({ server: v.server, tool: v.tool.name, prefix: config.mcpServers[v.server]?.prefix !== false })),
    { ...config.naming, prefixes: serverPrefixes(Object.keys(config.mcpServers), config.naming.separator) },
    previous,
  );
  const entries: CatalogEntry[] = [];
  const heldEntries: HeldEntry[] = [];
  const dropped: { server: string; tool: string; reason: string }[] = [];
  const cleaned = new Map<string, RemovedCounts>();
  visible.forEach((v, i) => {
    const reason = held(v.server, v.tool.name);
    if (reason !== undefined) {
      heldEntries.push({ qualifiedName: naming.names[i] as string, server: v.server, upstreamName: v.tool.name, reason });
      return;
    }
    let shown: ReturnType<typeof cleanTool>;
    let projected: ProjectedTool;
    try {
      // Upstream text is cleaned once here, before anything shows it (docs/security.md).
      shown = cleanTool(v.tool);
      projected = project(shown.tool, v.server);
    } catch (error) {
      // A hostile declaration (e.g. thousands of levels deep, or no object schema) must cost only that tool (docs/robustness.md).
      const message = error instanceof Error ? error.message : String(error);
      const reason = (error as { code?: unknown }).code === 'unservable_tool' ? message : `its declaration cannot be processed (${message})`;
      dropped.push({ server: v.server, tool: v.tool.name, reason });
      return;
    }
    if (removedTotal(shown.removed) > 0) cleaned.set(v.server, addRemoved(cleaned.get(v.server) ?? noneRemoved(), shown.removed));
    const tally = counts.get(v.server);
    if (tally) tally[v.exposure] += 1;
    entries.push({
      qualifiedName: naming.names[i] as string,
      server: v.server,
      upstreamName: v.tool.name,
      exposure: v.exposure,
      keywords: v.keywords,
      tool: shown.tool,
      canonicalSchema: v.tool.inputSchema,
      projected,
    });
  });
  entries.sort((a, b) => (a.qualifiedName < b.qualifiedName ? -1 : a.qualifiedName > b.qualifiedName ? 1 : 0));
  return snapshot(entries, counts, naming, dropped, cleaned, heldEntries);
}

/**
 * What server `server` serves, by exposure ({@link Catalogue.counts}; all 0 for a server the
 * catalogue has no listing of). What `inspect` and the dashboard show per server. Pure.
 */
export function servedCounts(catalogue: Catalogue, server: string): ExposureCounts {
  return { ...(catalogue.counts.get(server) ?? { direct: 0, deferred: 0, hidden: 0 }) };
}

/**
 * Freezes `entries` (sorted by qualified name) into a catalogue with its lookups. Used by
 * {@link buildCatalogue} and by views (catalog/views.ts), which narrow a built catalogue.
 */
export function snapshot(
  entries: CatalogEntry[],
  counts: Map<string, ExposureCounts>,
  naming: { readonly collisions: readonly NameCollision[]; readonly given: GivenNames },
  dropped: Catalogue['dropped'],
  cleaned: ReadonlyMap<string, RemovedCounts>,
  held: readonly HeldEntry[] = [],
): Catalogue {
  const heldByName = new Map(held.map((e) => [e.qualifiedName, e]));
  const byName = new Map(entries.map((e) => [e.qualifiedName, e]));
  const byUpstream = new Map(entries.map((e) => [`${e.server}\u0000${e.upstreamName}`, e]));
  return Object.freeze({
    entries: Object.freeze(entries),
    direct: Object.freeze(entries.filter((e) => e.exposure === 'direct')),
    deferred: Object.freeze(entries.filter((e) => e.exposure === 'deferred')),
    counts,
    collisions: naming.collisions,
    names: naming.given,
    dropped,
    cleaned,
    held: Object.freeze([...held]),
    heldTool: (name: string) => heldByName.get(name),
    get: (name: string) => byName.get(name),
    find: (server: string, upstreamName: string) => byUpstream.get(`${server}\u0000${upstreamName}`),
  });
}
