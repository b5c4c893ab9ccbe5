/**
 * Builds the shelf: the immutable catalogue snapshot with its search index, host-ranker view and
 * manifest, from the config and each upstream's tools. Rebuilt whole whenever an upstream's tools
 * change. Source: docs/architecture.md (shape), docs/tools.md, docs/search.md.
 */
import { buildCatalogue, type Catalogue, type HeldFn } from '../catalog/build.js';
import { unmatchedRules } from '../catalog/exposure.js';
import { unmatchedViewPatterns, viewCatalogue } from '../catalog/views.js';
import { schemaOptionsFor } from '../config/defaults.js';
import type { Config, ViewConfig } from '../config/types.js';
import type { CatalogEntry, UpstreamTool } from '../catalog/types.js';
import { jsonBytes } from '../schema/measure.js';
import type { HostRanker } from '../discovery/hostRanker.js';
import { rankerCatalogueOf } from '../discovery/hostRanker.js';
import { describeToolSearch } from '../discovery/manifest.js';
import { manifestKey, type ManifestMemo, type MemoizedManifest } from '../discovery/manifestMemo.js';
import { buildFloodGuard } from '../discovery/diversify.js';
import { oversizedServerWarnings } from '../discovery/flooding.js';
import { rankTools } from '../discovery/rank.js';
import { suggestNames } from '../discovery/suggest.js';
import type { SemanticEngine, SemanticScorer } from '../discovery/semantic/engine.js';
import { buildSearchIndex, type SearchHit } from '../discovery/searchIndex.js';
import type { Shelf } from '../gateway/types.js';
import type { Result } from '../lib/result.js';
import { projectTool } from '../schema/project.js';
import type { Logger } from '../trace/log.js';
import { cleanedWarning } from '../trust/clean.js';
import { counted } from '../lib/plural.js';

/** A shelf with BM25 alone beside its served ranking: the whole shelf, or one view's ({@link buildViewShelf}). */
export interface ViewShelf extends Shelf {
  /** BM25 alone over the searchable tools, best first, with scores (unitless): what the dashboard sets beside the served ranking. */
  bm25(query: string, limit: number): readonly SearchHit[];
}

/** A shelf plus what start-up summaries and `inspect` report about it. */
export interface BuiltShelf extends ViewShelf {
  /** Tools whose manifest entry had to clip a first sentence (a manifest warning, docs/tools.md). */
  readonly manifestWarnings: readonly string[];
  /** `tools` rules that match no tool of their listed server, one line each ({@link ruleWarnings}). */
  readonly ruleWarnings: readonly string[];
  /** Servers that bring far more searchable tools than the others (discovery/flooding.ts). */
  readonly floodWarnings: readonly string[];
}

/** Where a shelf keeps rendered manifests across processes, and the code version that keys them. */
export interface ShelfMemo {
  readonly memo: ManifestMemo;
  readonly version: string;
}

/**
 * Builds the catalogue (exposure, names, projected schemas) and, over its deferred tools, the BM25
 * index and the manifest. The manifest is rendered once per distinct client description limit, or
 * read from `memo` when this catalogue was rendered before (no tokenizer at start).
 * `semantic`, the serving gateway's encoder, is told the new catalogue to embed (docs/search.md).
 * `previous`, the shelf's last catalogue, keeps every name it gave out on the same tool.
 * `held` names the tools held for review (trust/keeper.ts): named, but out of every list, index and manifest.
 */
export function buildShelf(
  config: Config,
  toolsByServer: ReadonlyMap<string, readonly UpstreamTool[]>,
  host: Result<HostRanker, string> | undefined,
  previous?: Catalogue,
  memo?: ShelfMemo,
  semantic?: SemanticEngine,
  held?: HeldFn,
): BuiltShelf {
  const project = (tool: UpstreamTool, server: string) => projectTool(tool, schemaOptionsFor(config, server));
  const catalogue: Catalogue = buildCatalogue(config, toolsByServer, project, previous?.names, held);
  // Off (`discovery.semantic: false`) or no engine (inspect, search): BM25 alone, as before.
  const scorer = semantic && config.discovery.semantic ? semantic.track(catalogue.deferred) : undefined;
  const { shelf, manifestWarnings } = shelfOver(catalogue, config, host, memo, scorer);
  return {
    ...shelf,
    manifestWarnings,
    ruleWarnings: [...ruleWarnings(config, toolsByServer), ...viewWarnings(config, catalogue)],
    floodWarnings: oversizedServerWarnings(catalogue.deferred),
  };
}

/**
 * The shelf view `name` of `config` sees over `base` (catalog/views.ts): its own catalogue, BM25
 * index and manifest, built from the base shelf's entries. `name` undefined (a view the config does
 * not have) gives an empty shelf.
 */
export function buildViewShelf(config: Config, name: string | undefined, base: Shelf, host: Result<HostRanker, string> | undefined, memo?: ShelfMemo, semantic?: SemanticEngine): ViewShelf {
  const view = name !== undefined && Object.hasOwn(config.views, name) ? config.views[name]! : NO_TOOLS;
  const catalogue = viewCatalogue(base.catalogue, view, config.naming.separator);
  // A view's tools are the base shelf's: their vectors come from its tracking.
  const scorer = semantic && config.discovery.semantic ? semantic.scorerFor(catalogue.deferred) : undefined;
  return shelfOver(catalogue, config, host, memo, scorer).shelf;
}

/** The view of nothing: what a client of a view the config does not have sees. */
const NO_TOOLS: ViewConfig = { servers: [] };

/**
 * The BM25 index and manifest over `catalogue`'s deferred tools. The manifest is rendered once per
 * distinct client description limit, or read from `memo` when these tools were rendered before.
 */
function shelfOver(
  catalogue: Catalogue,
  config: Config,
  host: Result<HostRanker, string> | undefined,
  memo: ShelfMemo | undefined,
  semantic: SemanticScorer | undefined,
): { shelf: ViewShelf; manifestWarnings: readonly string[] } {
  const index = buildSearchIndex(catalogue.deferred, config.discovery.ranking);
  const rankContext = {
    index,
    mode: config.discovery.rankMode,
    ...(host ? { host } : {}),
    catalogue: rankerCatalogueOf(catalogue.deferred),
    timeoutMs: config.discovery.rankerTimeoutMs,
    guard: buildFloodGuard(catalogue.deferred),
    ...(semantic ? { semantic } : {}),
  };
  const manifests = new Map<number | undefined, string>();
  const tokenBudget = manifestBudget(config.discovery.manifestTokenBudget, catalogue.deferred);
  const describe = (maxChars: number | undefined): MemoizedManifest => {
    const render = (): MemoizedManifest => describeToolSearch(catalogue.deferred, { tokenBudget, ...(maxChars !== undefined ? { maxChars } : {}) });
    if (!memo || catalogue.deferred.length === 0) return render();
    const key = manifestKey(memo.version, catalogue.deferred, tokenBudget, maxChars);
    const known = memo.memo.get(key);
    if (known) return known;
    const fresh = render();
    memo.memo.set(key, { text: fresh.text, warnings: fresh.warnings });
    return fresh;
  };
  const first = describe(undefined);
  manifests.set(undefined, first.text);
  return {
    manifestWarnings: first.warnings,
    shelf: {
      catalogue,
      search: (query, limit) => rankTools(rankContext, query, limit),
      bm25: (query, limit) => index.rank(query, limit).hits,
      searchDescription(maxChars) {
        let text = manifests.get(maxChars);
        if (text === undefined) {
          text = describe(maxChars).text;
          manifests.set(maxChars, text);
        }
        return text;
      },
    },
  };
}

/** One line per view pattern that matches no tool of the catalogue (catalog/views.ts {@link unmatchedViewPatterns}). Pure. */
export function viewWarnings(config: Config, catalogue: Catalogue): string[] {
  return Object.entries(config.views).flatMap(([name, view]) =>
    unmatchedViewPatterns(catalogue, view, config.naming.separator).map(
      ({ field, pattern }) => `view "${name}": the ${field} pattern "${pattern}" matches none of the ${catalogue.entries.length} tools on the shelf, so it does nothing`,
    ),
  );
}

/**
 * One line per `tools` rule that matches no tool of its server (catalog/exposure.ts
 * {@link unmatchedRules}), with the closest name offered; servers with no tools listed yet (not up, nothing
 * cached) are skipped, since their rules cannot be checked. Pure.
 */
export function ruleWarnings(config: Config, toolsByServer: ReadonlyMap<string, readonly UpstreamTool[]>): string[] {
  const lines: string[] = [];
  for (const [server, entry] of Object.entries(config.mcpServers)) {
    const names = (toolsByServer.get(server) ?? []).map((t) => t.name);
    if (names.length === 0) continue;
    for (const pattern of unmatchedRules(entry.tools, names)) {
      const [closest] = suggestNames(pattern, names, 1);
      const hint = closest !== undefined ? `; did you mean "${closest}"?` : '';
      lines.push(`upstream "${server}": the tools rule "${pattern}" matches none of its ${counted(names.length, 'tool')}, so it does nothing${hint}`);
    }
  }
  return lines;
}

/**
 * Largest share of the replaced declarations the manifest may cost. docs/benchmarks.md sets the first
 * tools/list at least 90% smaller than all-direct, so the index of what was left out may take
 * about a tenth of its size (docs/tools.md, "The manifest"); the token budget stays the upper bound.
 */
export const MANIFEST_SHARE = 0.1;
/** Below this many tokens the share rule does not shrink the manifest: small catalogues keep full entries. */
export const MANIFEST_FLOOR_TOKENS = 1000;
/**
 * UTF-8 bytes per o200k token of JSON tool declarations, measured on the shared catalogues
 * (github 113,543 B → 25,105 tokens = 4.52; livemcpbench 372,963 B → 87,641 = 4.26).
 */
const JSON_BYTES_PER_TOKEN = 4.5;
/** Bytes of `{"name":,"description":,"inputSchema":}` around the three values of a declaration. */
const DECLARATION_FRAME_BYTES = 39;

/**
 * The manifest's token budget: the configured one (default 4,000), lowered to
 * {@link MANIFEST_SHARE} of the tokens the deferred tools would cost if advertised directly, but
 * never below {@link MANIFEST_FLOOR_TOKENS}. Pure. Units: tokens (o200k).
 */
export function manifestBudget(configured: number, deferred: readonly CatalogEntry[]): number {
  let replacedBytes = 0;
  for (const entry of deferred) {
    // The compact JSON of {name, description, inputSchema}, from the schema size projection measured.
    replacedBytes += DECLARATION_FRAME_BYTES + jsonBytes(entry.qualifiedName) + jsonBytes(entry.tool.description ?? '') + entry.projected.canonicalBytes;
  }
  const share = Math.floor((MANIFEST_SHARE * replacedBytes) / JSON_BYTES_PER_TOKEN);
  return Math.min(configured, Math.max(MANIFEST_FLOOR_TOKENS, share));
}

/**
 * Logs each manifest warning, each `tools` rule that matches nothing, each dropped tool, each field
 * a tool's wire form left out and what cleaning removed per server, once per process: a re-list that changes nothing repeats nothing.
 */
export function logShelfWarnings(shelf: BuiltShelf, logger: Logger, seen: Set<string>): void {
  const lines = [
    ...shelf.manifestWarnings.map((w) => `manifest: ${w}`),
    ...shelf.ruleWarnings,
    ...shelf.floodWarnings,
    ...shelf.catalogue.dropped.map((d) => `upstream "${d.server}": dropped tool ${d.tool}: ${d.reason}`),
    ...shelf.catalogue.entries.flatMap((e) => e.projected.leftOut.map((why) => `upstream "${e.server}": tool ${e.upstreamName}: ${why}`)),
    ...[...shelf.catalogue.cleaned].map(([server, removed]) => cleanedWarning(server, `its tools' text`, removed)),
  ];
  for (const line of lines) {
    if (seen.has(line)) continue;
    seen.add(line);
    logger.warn(line);
  }
}
