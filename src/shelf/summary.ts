/**
 * The start-up summary printed on stderr and used by `inspect`: upstreams connected, tools by
 * exposure, and the first tools/list size beside the all-direct size. Pure. The sizes are defined in
 * docs/operations.md ("Sizes"); bench/wire.mjs measures the same all-direct figure.
 */
import type { Config } from '../config/types.js';
import type { UpstreamTool } from '../catalog/types.js';
import { encodeLaneResult } from '../gateway/fronts/callLane.js';
import { legacyTools, modernTools, TOOLS_LIST_CACHE } from '../gateway/toolList.js';
import { sessionSettings } from '../gateway/sessionOptions.js';
import { estimateTokens, jsonBytes } from '../schema/measure.js';
import type { BuiltShelf } from './build.js';
import type { UpstreamSummary } from '../upstream/pool.js';
import { counted } from '../lib/plural.js';

/** Counts and sizes at start. Bytes are UTF-8 bytes of the compact JSON of a tools/list result. */
export interface StartSummary {
  readonly upstreams: readonly UpstreamSummary[];
  readonly direct: number;
  readonly deferred: number;
  readonly hidden: number;
  /** First tools/list as a new client sees it (bridge tools included, nothing promoted). */
  readonly firstListBytes: number;
  readonly firstListTokens: number;
  /**
   * The first tools/list result a modern (2026-07-28) client gets, whole: tools, cache hint,
   * `resultType` and toolshelf's `serverInfo` in `_meta`, as the SDK's 2026 codec sends it.
   */
  readonly modernListBytes: number;
  /**
   * The "before" figure: what a client receives from tools/list with the same upstreams registered
   * directly, one result per upstream, summed: `{"tools":[…]}` with each tool as the upstream lists it
   * (hidden ones too: toolshelf is what hides them). An upstream that pages counts as one result.
   */
  readonly allDirectBytes: number;
  readonly allDirectTokens: number;
}

/**
 * {@link StartSummary.allDirectBytes} of the upstreams' tools as listed (`toolsByServer`, verbatim).
 * A tool nested too deeply for JSON.stringify here (the catalogue drops it too) is left out of the
 * count rather than failing the start: one did (test/e2e/faults.e2e.test.ts, deepSchema.mjs). Pure.
 */
export function allDirectBytes(toolsByServer: ReadonlyMap<string, readonly UpstreamTool[]>): number {
  let bytes = 0;
  for (const tools of toolsByServer.values()) if (tools.length > 0) bytes += listBytes(tools);
  return bytes;
}

/** Bytes of `{"tools":[…]}`, tool by tool when the whole cannot be serialised. */
function listBytes(tools: readonly UpstreamTool[]): number {
  try {
    return jsonBytes({ tools });
  } catch {
    const sizes = tools.flatMap((tool) => {
      try {
        return [jsonBytes(tool)];
      } catch {
        return [];
      }
    });
    return jsonBytes({ tools: [] }) + sizes.reduce((sum, size) => sum + size, 0) + Math.max(0, sizes.length - 1);
  }
}

/**
 * Computes the summary for a shelf as an unnamed client (call_tool on under `auto`) would see it;
 * `toolsByServer` holds each upstream's tools as listed, `version` toolshelf's own (its `serverInfo`).
 */
export function summarize(config: Config, upstreams: readonly UpstreamSummary[], shelf: BuiltShelf, toolsByServer: ReadonlyMap<string, readonly UpstreamTool[]>, version: string): StartSummary {
  const { catalogue } = shelf;
  const settings = sessionSettings(config);
  const first = legacyTools(shelf, settings, undefined, []);
  const hidden = [...catalogue.counts.values()].reduce((sum, c) => sum + c.hidden, 0);
  const firstListBytes = jsonBytes({ tools: first });
  const modernList = { tools: modernTools({ shelf: () => shelf, settings }, undefined), ...TOOLS_LIST_CACHE };
  const modernListBytes = jsonBytes(encodeLaneResult(modernList, 'modern', { name: 'toolshelf', version }));
  const allDirect = allDirectBytes(toolsByServer);
  return {
    upstreams,
    direct: catalogue.direct.length,
    deferred: catalogue.deferred.length,
    hidden,
    firstListBytes,
    firstListTokens: estimateTokens(firstListBytes),
    modernListBytes,
    allDirectBytes: allDirect,
    allDirectTokens: estimateTokens(allDirect),
  };
}

/**
 * `<label>: 3/4 connected (files: 14 tools, memory: starting, …)`: each upstream in config order with
 * its tool count, `… cached, starts on first use` when lazy and idle, else its status.
 */
export function upstreamsLine(upstreams: readonly UpstreamSummary[], label = 'upstreams'): string {
  const ready = upstreams.filter((u) => u.status === 'ready');
  return `${label}: ${ready.length}/${upstreams.length} connected (${upstreams.map((u) => `${u.key}: ${u.status === 'ready' ? counted(u.tools, 'tool') : u.status === 'idle' ? `${counted(u.tools, 'tool')} cached, starts on first use` : u.status}`).join(', ')})`;
}

/**
 * One line per upstream that is not up and has an error to say why: `upstream "files" failed: <error>`,
 * or, while it is tried again, `upstream "files" is starting (last error: <error>)`. The shared
 * instance's clients see these (share/status.ts).
 */
export function failureLines(upstreams: readonly UpstreamSummary[]): string[] {
  return upstreams
    .filter((u) => u.error !== undefined && u.error !== '' && u.status !== 'ready')
    .map((u) => (u.status === 'failed' ? `upstream "${u.key}" failed: ${u.error}` : `upstream "${u.key}" is ${u.status.replace(/_/g, ' ')} (last error: ${u.error})`));
}

/** The summary as a few lines for stderr. */
export function formatSummary(summary: StartSummary): string[] {
  const lines = [upstreamsLine(summary.upstreams)];
  lines.push(`tools: ${summary.direct} direct, ${summary.deferred} deferred, ${summary.hidden} hidden`);
  const saved = summary.allDirectBytes > 0 ? Math.round((1 - summary.firstListBytes / summary.allDirectBytes) * 100) : 0;
  const change = saved >= 0 ? `${saved}% smaller` : `${-saved}% larger: the tool_search index costs more than the few tools it defers`;
  lines.push(
    `first tools/list: ${summary.firstListBytes.toLocaleString('en-US')} bytes (~${summary.firstListTokens.toLocaleString('en-US')} tokens; ${summary.modernListBytes.toLocaleString('en-US')} bytes for a 2026-07-28 client) vs ${summary.allDirectBytes.toLocaleString('en-US')} bytes all-direct (${change})`,
  );
  return lines;
}
