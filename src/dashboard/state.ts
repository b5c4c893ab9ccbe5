/**
 * The dashboard's picture of the shelf as JSON: each upstream (state, protocol era, tools, bytes a
 * client receives for it before and after toolshelf), each tool (exposure, where it was promoted,
 * canonical vs wire schema bytes, annotations), the connected clients, and tool_search's description
 * exactly as each kind of client receives it. Pure: the caller passes the live parts in.
 * Bytes are UTF-8 bytes of compact JSON (schema/measure.ts). Source: docs/dashboard.md.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { servedCounts } from '../catalog/build.js';
import type { CatalogEntry } from '../catalog/types.js';
import type { Config } from '../config/types.js';
import { legacyTools, modernTools, wireTool } from '../gateway/toolList.js';
import { sessionSettings } from '../gateway/sessionOptions.js';
import { jsonBytes, textBytes } from '../schema/measure.js';
import type { Shelf } from '../gateway/types.js';
import { printableLine } from '../lib/printable.js';
import type { HoldReason, ServerPins } from '../trust/judge.js';
import { diffPins } from '../trust/pin.js';
import type { Finding } from '../trust/scan.js';
import type { BuiltShelf } from '../shelf/build.js';
import type { StartSummary } from '../shelf/summary.js';
import type { UpstreamSummary } from '../upstream/pool.js';

/** One upstream as the page shows it. */
export interface ServerView {
  readonly key: string;
  readonly status: UpstreamSummary['status'];
  /** The protocol era it speaks, once known (`legacy`: 2025 revisions; `modern`: 2026-07-28). */
  readonly era?: 'legacy' | 'modern';
  /** Starts on first use and stops when idle. */
  readonly lazy: boolean;
  readonly error?: string;
  readonly direct: number;
  readonly deferred: number;
  readonly hidden: number;
  /** Its tools (hidden ones excepted) declared directly with their canonical schemas: what a client would receive without toolshelf. */
  readonly bytesBefore: number;
  /** Its tools on the first tools/list through toolshelf: the direct ones' wire declarations (deferred tools cost a manifest line instead). */
  readonly bytesAfter: number;
}

/** One tool as the page shows it. */
export interface ToolView {
  readonly name: string;
  readonly server: string;
  readonly upstreamName: string;
  readonly exposure: 'direct' | 'deferred';
  readonly description: string;
  /** The tool's annotations as its upstream declared them (hints are hints, not guarantees: MCP spec, Tools › Annotations). */
  readonly annotations?: Record<string, unknown>;
  /** Bytes of the inputSchema as declared and as sent (after preparation and compaction). */
  readonly canonicalBytes: number;
  readonly wireBytes: number;
  /** Compaction rung applied (0: none). */
  readonly rung: number;
  /** The clients (labels of {@link ClientView}) whose list this tool was promoted into. */
  readonly promotedIn: readonly string[];
  /** Its pin (docs/security.md): `pinned` on first use, `reviewed` once a person approved it; absent without a pin store. */
  readonly pin?: 'pinned' | 'reviewed';
}

/** Something held for review: a tool's new version, or a server's instructions (what `toolshelf review` shows). */
export interface ReviewItem {
  readonly server: string;
  /** The tool's name on its upstream; absent for the server's instructions. */
  readonly tool?: string;
  readonly reason: HoldReason | 'instructions';
  /** What changed since the pin, field by field (one printable line each); for new tools and instructions, the text as it is now. */
  readonly changes: readonly { readonly field: string; readonly before?: string; readonly after?: string }[];
  readonly findings: readonly { readonly kind: string; readonly where: string; readonly excerpt: string }[];
  /** A person rejected this very version on review: it stays held, and is not counted as waiting. */
  readonly rejected?: true;
}

/** One connected legacy-era client (a 2026-07-28 client has no session to show). */
export interface ClientView {
  /** The session id as the trace names it. */
  readonly session: string;
  readonly name?: string;
  /** Tools promoted into its list, in promotion order. */
  readonly promoted: readonly string[];
}

/** tool_search's description as one kind of client receives it. */
export interface ManifestView {
  readonly client: string;
  readonly text: string;
  readonly bytes: number;
}

/** A named view (docs/views.md): the tools its clients can reach and their tool_search descriptions. */
export interface ViewView {
  readonly name: string;
  /** Qualified names of the tools in the view (direct and deferred). */
  readonly tools: readonly string[];
  readonly manifests: readonly ManifestView[];
}

/** Everything the page draws, but the activity stream. */
export interface DashboardState {
  readonly version: string;
  readonly servers: readonly ServerView[];
  readonly tools: readonly ToolView[];
  readonly clients: readonly ClientView[];
  readonly totals: {
    readonly direct: number;
    readonly deferred: number;
    readonly hidden: number;
    /** First tools/list a new client receives, and the same tools all declared directly. */
    readonly firstListBytes: number;
    readonly modernListBytes: number;
    readonly allDirectBytes: number;
  };
  readonly manifests: readonly ManifestView[];
  /** The config's views, in the config's order; empty when it defines none. */
  readonly views: readonly ViewView[];
  /** What is held for review, server by server in config order. */
  readonly review: readonly ReviewItem[];
}

/** What {@link dashboardState} reads. */
export interface StateInput {
  readonly version: string;
  readonly config: Config;
  readonly shelf: BuiltShelf;
  readonly summary: StartSummary;
  readonly upstreams: readonly UpstreamSummary[];
  readonly clients: readonly ClientView[];
  /** The shelf of view `name` (shelf/live.ts `view`). */
  readonly viewShelf: (name: string) => Shelf;
  /** The pins of a server (shelf/live.ts `pins`); undefined without a pin store. */
  readonly pins: (server: string) => ServerPins | undefined;
}

/**
 * Client kinds whose tool_search description differs, by `clientInfo.name` (gateway/clients.ts): an
 * unnamed 2025-era client (call_tool on), one that re-lists on list_changed (no call_tool), and Claude
 * Code (descriptions cut at 2,048 characters).
 */
const LEGACY_KINDS: readonly { readonly label: string; readonly name: string | undefined }[] = [
  { label: '2025 client that ignores list_changed (Claude Desktop, Cursor, unnamed)', name: undefined },
  { label: '2025 client that re-lists (VS Code)', name: 'Visual Studio Code' },
  { label: 'Claude Code', name: 'claude-code' },
];

/** Builds the page's state. */
export function dashboardState(input: StateInput): DashboardState {
  const { shelf, summary, config } = input;
  const { catalogue } = shelf;
  const promotedIn = new Map<string, string[]>();
  for (const client of input.clients) for (const name of client.promoted) promotedIn.set(name, [...(promotedIn.get(name) ?? []), client.session]);
  const pinsBy = new Map(Object.keys(config.mcpServers).map((server) => [server, input.pins(server)]));
  const servers = input.upstreams.map((upstream): ServerView => {
    const entries = catalogue.entries.filter((e) => e.server === upstream.key);
    const counts = servedCounts(catalogue, upstream.key);
    return {
      key: upstream.key,
      status: upstream.status,
      ...(upstream.era ? { era: upstream.era } : {}),
      lazy: upstream.lazy,
      ...(upstream.error ? { error: upstream.error } : {}),
      ...counts,
      bytesBefore: declarationBytes(entries.map(directDeclaration)),
      bytesAfter: declarationBytes(entries.filter((e) => e.exposure === 'direct').map(wireTool)),
    };
  });
  const tools = catalogue.entries.map(
    (entry): ToolView => ({
      name: entry.qualifiedName,
      server: entry.server,
      upstreamName: entry.upstreamName,
      exposure: entry.exposure === 'direct' ? 'direct' : 'deferred',
      description: entry.projected.description,
      ...(isObject(entry.tool.annotations) ? { annotations: entry.tool.annotations } : {}),
      canonicalBytes: entry.projected.canonicalBytes,
      wireBytes: entry.projected.projectedBytes,
      rung: entry.projected.rung,
      promotedIn: promotedIn.get(entry.qualifiedName) ?? [],
      ...pinOf(pinsBy.get(entry.server), entry.upstreamName),
    }),
  );
  return {
    version: input.version,
    servers,
    tools,
    clients: input.clients,
    totals: {
      direct: summary.direct,
      deferred: summary.deferred,
      hidden: summary.hidden,
      firstListBytes: summary.firstListBytes,
      modernListBytes: summary.modernListBytes,
      allDirectBytes: summary.allDirectBytes,
    },
    manifests: manifests(config, shelf),
    views: Object.keys(config.views).map((name) => {
      const viewed = input.viewShelf(name);
      return { name, tools: viewed.catalogue.entries.map((e) => e.qualifiedName), manifests: manifests(config, viewed) };
    }),
    review: [...pinsBy].flatMap(([server, pins]) => (pins ? reviewItems(server, pins) : [])),
  };
}

/** A tool declared directly by its upstream, as the all-direct figure counts it (shelf/summary.ts). */
function directDeclaration(entry: CatalogEntry): Tool {
  return { ...wireTool(entry), description: entry.tool.description ?? '', inputSchema: entry.tool.inputSchema as Tool['inputSchema'] };
}

/** Longest line shown for one reviewed field, in characters. */
const MAX_FIELD_CHARS = 4000;

/** `{pin}` for a tool `pins` holds, else nothing. */
function pinOf(pins: ServerPins | undefined, tool: string): { pin?: 'pinned' | 'reviewed' } {
  const pinned = pins?.tools[tool];
  return pinned ? { pin: pinned.reviewed ? 'reviewed' : 'pinned' } : {};
}

/** What `server`'s pins hold for review, every upstream string one printable line (as `toolshelf review` prints it). */
function reviewItems(server: string, pins: ServerPins): ReviewItem[] {
  const show = (text: string): string => printableLine(text, MAX_FIELD_CHARS);
  const findings = (list: readonly Finding[]) => list.map((f) => ({ kind: f.kind, where: f.where, excerpt: show(f.excerpt) }));
  const items: ReviewItem[] = Object.entries(pins.held).map(([tool, version]) => ({
    server,
    tool,
    reason: version.reason,
    changes: diffPins(pins.tools[tool]?.text ?? {}, version.text).map((c) => ({ field: c.field, ...(c.before !== undefined ? { before: show(c.before) } : {}), ...(c.after !== undefined ? { after: show(c.after) } : {}) })),
    findings: findings(version.findings),
    ...(pins.rejected?.[tool] === version.hash ? { rejected: true as const } : {}),
  }));
  if (pins.heldInstructions) items.push({ server, reason: 'instructions', changes: [{ field: 'instructions', after: show(pins.heldInstructions.text) }], findings: findings(pins.heldInstructions.findings) });
  return items;
}

/** Bytes of `tools` as a tools/list result's array holds them; 0 for none. */
function declarationBytes(tools: readonly Tool[]): number {
  return tools.length === 0 ? 0 : jsonBytes(tools);
}

/** tool_search's description for each client kind; none when no client gets a tool_search. */
function manifests(config: Config, shelf: Shelf): ManifestView[] {
  const settings = sessionSettings(config);
  const kinds = [
    ...LEGACY_KINDS.map((kind) => ({ label: kind.label, tools: legacyTools(shelf, settings, kind.name, []) })),
    { label: '2026-07-28 client', tools: modernTools({ shelf: () => shelf, settings }, undefined) },
  ];
  const views: ManifestView[] = [];
  for (const kind of kinds) {
    const description = kind.tools.find((t) => t.name === 'tool_search')?.description;
    if (description !== undefined) views.push({ client: kind.label, text: description, bytes: textBytes(description) });
  }
  return views;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
