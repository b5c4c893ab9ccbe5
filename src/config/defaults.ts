/**
 * Defaults for every toolshelf key, each with its source, and the pure step that applies them
 * to a validated, interpolated config.
 */
import type {
  CompactionBudget,
  CompactionSetting,
  Config,
  PrepareOptions,
  ServerConfig,
  SchemaSettings,
  TrustSettings,
} from './types.js';
import { setOwn } from './interpolate.js';

/** Longest qualified name: Claude Code prefixes `mcp__<alias>__` and model APIs cap names at 64 (docs/configuration.md). */
export const DEFAULT_MAX_NAME_LENGTH = 48;
/** Separator between server key and tool name (docs/configuration.md). */
export const DEFAULT_SEPARATOR = '__';
/** Manifest budget in tokens (docs/tools.md). */
export const DEFAULT_MANIFEST_TOKEN_BUDGET = 4000;
/** tool_search limit default and clamp (docs/tools.md). */
export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;
/** Host ranker time limit in ms before BM25 takes over (docs/search.md). */
export const DEFAULT_RANKER_TIMEOUT_MS = 2000;
/**
 * Most UTF-8 bytes of one upstream's initialize `instructions` passed on in toolshelf's own, clipped
 * at a sentence end: ten servers then add at most ~10 KB (~2,500 tokens), about
 * the manifest's budget (docs/tools.md). Per server: `instructionsBytes`.
 */
export const DEFAULT_INSTRUCTIONS_BYTES = 1024;
/** Per-call upstream timeout in ms, an idle timeout reset by progress: the SDK's own default request timeout (docs/robustness.md). */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** A lazy upstream unused this long is stopped, in ms: long enough to cover a conversation's pauses. */
export const DEFAULT_IDLE_STOP_MS = 600_000;
/** The shared instance outlives its last client by this much, in ms, so a client restart finds it warm. */
export const DEFAULT_SHARE_IDLE_EXIT_MS = 300_000;
/** The "third-party" compaction budget: what Codex applies to MCP tools (docs/tools.md). */
export const THIRD_PARTY_BUDGET = { maxDescriptionBytes: 1000, maxSchemaBytes: 5000 } as const;
/** Preparation is off unless asked for: the seed's default is verbatim (docs/tools.md). */
export const NO_PREPARATION: PrepareOptions = { resolveRefs: false, stripKeywords: false, strict: false };

/** Turns the file's `compaction` setting into byte budgets; absent means "third-party". */
export function compactionBudget(setting: CompactionSetting | undefined, base: CompactionBudget = THIRD_PARTY_BUDGET): CompactionBudget {
  if (setting === undefined) return base;
  if (setting === false) return false;
  if (setting === 'third-party') return THIRD_PARTY_BUDGET;
  const from = base === false ? THIRD_PARTY_BUDGET : base;
  return {
    maxDescriptionBytes: setting.maxDescriptionBytes ?? from.maxDescriptionBytes,
    maxSchemaBytes: setting.maxSchemaBytes ?? from.maxSchemaBytes,
  };
}

/**
 * The schema options for one server: its own `schemas` over the global ones (docs/tools.md).
 * Returns byte budgets (or false) and the preparation switches.
 */
export function schemaOptionsFor(config: Config, server: string): { compaction: CompactionBudget; prepare: PrepareOptions } {
  const own: SchemaSettings | undefined = config.mcpServers[server]?.schemas;
  return {
    compaction: compactionBudget(own?.compaction, config.schemas.compaction),
    prepare: { ...config.schemas.prepare, ...own?.prepare },
  };
}

/** Trust defaults (docs/security.md): changed tools quarantined, new tools of a pinned server pinned with a warning, flagged text held. */
export const DEFAULT_TRUST: TrustSettings = { changes: 'quarantine', newTools: 'pin', scanner: 'hold' };

/** The trust settings for `server`: its own `trust` fields over the top-level ones. */
export function trustFor(config: Pick<Config, 'trust' | 'mcpServers'>, server: string): TrustSettings {
  return { ...DEFAULT_TRUST, ...config.trust, ...config.mcpServers[server]?.trust };
}

/** Input to {@link applyDefaults}: a config that passed validation and interpolation. */
export interface RawConfig {
  mcpServers: Record<string, ServerConfig & { type?: string }>;
  exposure?: Config['exposure'];
  discovery?: Partial<Config['discovery']>;
  schemas?: SchemaSettings;
  naming?: Partial<Config['naming']>;
  bridge?: Partial<Config['bridge']>;
  trace?: Partial<Config['trace']>;
  lazy?: boolean;
  idleStopMs?: number;
  share?: Partial<Config['share']>;
  views?: Config['views'];
  trust?: Partial<Config['trust']>;
}

/**
 * Applies every default; drops `disabled` servers; maps `type: "sse"` to the SSE transport.
 * Server keys come from the file, so they are set as own properties ({@link setOwn}), never assigned.
 */
export function applyDefaults(raw: RawConfig, baseDir: string): Config {
  const servers: Record<string, ServerConfig> = {};
  for (const [key, entry] of Object.entries(raw.mcpServers)) {
    if (entry.disabled) continue;
    const { type, ...rest } = entry;
    setOwn(servers, key, type === 'sse' && 'url' in rest && !rest.transport ? { ...rest, transport: 'sse' } : rest);
  }
  return {
    mcpServers: servers,
    exposure: raw.exposure ?? 'deferred',
    discovery: {
      enabled: true,
      manifestTokenBudget: DEFAULT_MANIFEST_TOKEN_BUDGET,
      defaultLimit: DEFAULT_SEARCH_LIMIT,
      maxLimit: MAX_SEARCH_LIMIT,
      rankMode: raw.discovery?.ranker ? 'ranker' : 'bm25',
      rankerTimeoutMs: DEFAULT_RANKER_TIMEOUT_MS,
      semantic: true,
      // Decide per client, and keep toolshelf's own tools loaded behind deferring clients.
      mode: 'auto',
      alwaysLoad: true,
      ...raw.discovery,
    },
    schemas: {
      compaction: compactionBudget(raw.schemas?.compaction),
      prepare: { ...NO_PREPARATION, ...raw.schemas?.prepare },
    },
    naming: { separator: DEFAULT_SEPARATOR, maxLength: DEFAULT_MAX_NAME_LENGTH, ...raw.naming },
    // Risky calls through call_tool ask the user first, or are refused where the client cannot be asked (docs/security.md).
    bridge: { callTool: 'auto', confirm: 'destructive', unaskable: 'refuse', ...raw.bridge },
    trace: { captureToolIo: false, ...raw.trace },
    lazy: raw.lazy ?? false,
    idleStopMs: raw.idleStopMs ?? DEFAULT_IDLE_STOP_MS,
    share: { enabled: true, idleExitMs: DEFAULT_SHARE_IDLE_EXIT_MS, ...raw.share },
    views: Object.fromEntries(Object.entries(raw.views ?? {})),
    trust: { ...DEFAULT_TRUST, ...raw.trust },
    baseDir,
  };
}
