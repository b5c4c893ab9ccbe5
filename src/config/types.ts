/**
 * Config shapes for `servers.config.json` after validation and defaults.
 * Source: docs/configuration.md. Imports no other folder.
 */

export type ExposureSetting = 'direct' | 'deferred' | 'hidden';

/** Per-tool rule, keyed by exact tool name or glob (`*`, `?`) in a server's `tools` object (docs/configuration.md). */
export interface ToolRule {
  readonly exposure?: ExposureSetting;
  /** Trigger words for the manifest and the search index (docs/tools.md, docs/search.md). */
  readonly keywords?: readonly string[];
}

/** Schema preparation switches (docs/tools.md); each off by default. */
export interface PrepareOptions {
  readonly resolveRefs: boolean;
  readonly stripKeywords: boolean;
  readonly strict: boolean;
}

/** Compaction budget in UTF-8 bytes of compact JSON (docs/tools.md); `false` disables compaction. */
export type CompactionBudget = { readonly maxDescriptionBytes: number; readonly maxSchemaBytes: number } | false;

/** Schema options as written in the file: `"third-party"`, `false`, or explicit numbers. */
export type CompactionSetting = 'third-party' | false | { maxDescriptionBytes?: number; maxSchemaBytes?: number };

export interface SchemaSettings {
  readonly compaction?: CompactionSetting;
  readonly prepare?: Partial<PrepareOptions>;
}

/**
 * How upstream tools are pinned and checked (docs/security.md, "Pins, quarantine and review", "The
 * scanner"). Written per field; the top level's apply where a server gives none.
 */
export interface TrustSettings {
  /** A tool that differs from its pin: `quarantine` (default) holds it, `warn` serves it with a warning and pins it anew, `off` does not check. */
  readonly changes: 'quarantine' | 'warn' | 'off';
  /** A tool an already pinned server adds later: `pin` (default) pins it with a warning, `hold` holds it. */
  readonly newTools: 'pin' | 'hold';
  /** Instruction-like text: `hold` (default) withholds the tool or instructions until approved, `warn` only warns, `off` does not scan. */
  readonly scanner: 'hold' | 'warn' | 'off';
}

interface ServerCommon {
  /** Default exposure for this server's tools (docs/configuration.md). */
  readonly exposure?: ExposureSetting;
  /** Rules per tool name or glob. */
  readonly tools?: Readonly<Record<string, ToolRule>>;
  /** `false` exposes tools under their own names (docs/configuration.md). Default true. */
  readonly prefix?: boolean;
  /** Per-server schema settings, over the global ones. */
  readonly schemas?: SchemaSettings;
  /** Per-call timeout for this upstream in ms, reset by progress (default 60,000). */
  readonly timeoutMs?: number;
  /** Cap on one call in ms even while progress keeps arriving (default 600,000). */
  readonly maxTotalMs?: number;
  /** Longest wait in ms for initialize plus the first tools/list (default 30,000, or TOOLSHELF_START_TIMEOUT_MS). */
  readonly startTimeoutMs?: number;
  /** Most UTF-8 bytes of this server's initialize `instructions` passed on in toolshelf's own (default 1,024; 0 passes none). */
  readonly instructionsBytes?: number;
  /** `true` skips this server entirely (Claude Desktop-style `disabled`). */
  readonly disabled?: boolean;
  /** With a cached catalogue, start only on first use (default: the top-level `lazy`). */
  readonly lazy?: boolean;
  /** A lazy upstream unused this long in ms is stopped; 0 never (default: the top-level `idleStopMs`). */
  readonly idleStopMs?: number;
  /**
   * The MCP era spoken to this upstream: `auto` (default) probes with `server/discover` once and
   * caches the verdict; `legacy` (2025 `initialize`) and `modern` (2026-07-28) never probe.
   */
  readonly protocol?: 'auto' | 'legacy' | 'modern';
  /** This server's own trust settings, over the top-level `trust`. */
  readonly trust?: Partial<TrustSettings>;
}

/** A stdio upstream: a child process speaking MCP on stdin/stdout (docs/robustness.md). */
export interface StdioServerConfig extends ServerCommon {
  readonly command: string;
  readonly args?: readonly string[];
  /** Variables set for the child, over the inherited environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** `true` merges `env` over the gateway's whole environment; `false` (default) passes only the SDK's safe set plus `env` (`upstream/process.ts` SAFE_ENV). */
  readonly inheritEnv?: boolean;
  readonly cwd?: string;
}

/**
 * OAuth 2.1 sign-in settings for a remote upstream (MCP spec, Authorization).
 * Every string may use `${VAR}`. Absent: a server that answers 401 is signed into with defaults.
 */
export interface AuthSettings {
  /** A client ID registered in advance (skips dynamic registration). */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Space-separated scopes to ask for (default: the server's challenge, else its metadata). */
  readonly scope?: string;
  /** HTTPS URL of a client ID metadata document (CIMD), used where the authorization server supports it. */
  readonly clientMetadataUrl?: string;
  /** `authorization_code` (default: a user signs in) or `client_credentials` (no user). */
  readonly grantType?: 'authorization_code' | 'client_credentials';
  /** PEM private key for `private_key_jwt` client authentication (RFC 7523). */
  readonly privateKey?: string;
  /** JWS algorithm for `privateKey` (default RS256). */
  readonly signingAlgorithm?: string;
  /** Longest a browser sign-in may take, in ms (default 300,000). */
  readonly signInTimeoutMs?: number;
}

/** A remote upstream over Streamable HTTP, falling back to SSE (docs/robustness.md). */
export interface RemoteServerConfig extends ServerCommon {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** `auto` (default) tries Streamable HTTP then SSE. */
  readonly transport?: 'auto' | 'streamable-http' | 'sse';
  /** OAuth sign-in settings. */
  readonly auth?: AuthSettings;
}

export type ServerConfig = StdioServerConfig | RemoteServerConfig;

/** Ranking knobs (docs/search.md); defaults live in `discovery/`. */
export interface RankingSettings {
  readonly boosts?: Readonly<Record<string, number>>;
  readonly bm25?: { readonly k1?: number; readonly b?: number; readonly d?: number };
}

export interface DiscoverySettings {
  readonly enabled: boolean;
  /** Token budget of the manifest in tool_search's description (default 4,000; docs/tools.md). */
  readonly manifestTokenBudget: number;
  /** tool_search limit default and clamp (5 / 20; docs/tools.md). */
  readonly defaultLimit: number;
  readonly maxLimit: number;
  /** Module path exporting `rank(query, tools, limit)` (docs/search.md). */
  readonly ranker?: string;
  readonly rankMode: 'bm25' | 'ranker' | 'compare';
  /** Time limit for the host ranker in ms. */
  readonly rankerTimeoutMs: number;
  /**
   * Fuse BM25 with the shipped sentence encoder in tool_search (default true; docs/search.md). false:
   * BM25 alone, ranked exactly as without the encoder, and the model never loads.
   */
  readonly semantic: boolean;
  readonly ranking?: RankingSettings;
  /**
   * Who finds deferred tools: `own` = toolshelf's manifest and tool_search; `client` = every
   * deferred tool advertised with its projected schema and searchHint for the client's own tool search,
   * no tool_search, no call_tool; `auto` (default) = `client` for clients known to defer every MCP tool
   * themselves (gateway/clients.ts), `own` for the rest.
   */
  readonly mode: 'auto' | 'own' | 'client';
  /**
   * Mark direct, bridge and promoted tools `_meta["anthropic/alwaysLoad"]: true` so a client that defers
   * MCP tools keeps them loaded. Default true.
   */
  readonly alwaysLoad: boolean;
}

export interface NamingSettings {
  /** Between server key and tool name (default `__`; docs/configuration.md). */
  readonly separator: string;
  /** Longest qualified name in characters (default 48; docs/configuration.md). */
  readonly maxLength: number;
}

/**
 * Which tools run through call_tool are confirmed with the user first (docs/security.md "Risky
 * calls"): `destructive` (default) those that declare themselves destructive; `mcp-defaults` every
 * tool destructive under MCP's defaults, unannotated ones included; `open-world` those and every
 * open-world one; `off` none.
 */
export type ConfirmPolicy = 'destructive' | 'mcp-defaults' | 'open-world' | 'off';

export interface BridgeSettings {
  /** `auto` turns call_tool on for clients known to ignore list_changed, and unknown clients (docs/tools.md). */
  readonly callTool: 'auto' | 'always' | 'never';
  /** Which bridged calls are confirmed with the user (default `destructive`). */
  readonly confirm: ConfirmPolicy;
  /** A call to confirm when the client cannot be asked: `refuse` (default, with how to allow it) or `run`. */
  readonly unaskable: 'refuse' | 'run';
}

export interface TraceSettings {
  /** Record tool_search queries and call arguments in the trace (docs/cli.md). Default false. */
  readonly captureToolIo: boolean;
}

/** Shared background instance for stdio clients. */
export interface ShareSettings {
  /** Default true; `false` or `--no-share` keeps one gateway process per client. */
  readonly enabled: boolean;
  /** The shared instance exits this long in ms after its last client left (default 300,000). */
  readonly idleExitMs: number;
}

/**
 * A named view (docs/views.md): the part of the shelf one client sees, selected with `--view NAME`
 * over stdio or the path `/mcp/NAME` over HTTP. Tool patterns are exact names or globs (`*`, `?`)
 * matched against `SERVER<separator>TOOL` (server key and upstream tool name) and against the
 * qualified name the client sees. A view narrows the shelf: a tool the config hides stays hidden.
 */
export interface ViewConfig {
  /** Server keys whose tools the view holds; absent: every server. */
  readonly servers?: readonly string[];
  /** A tool must match one of these patterns; absent: every tool of the view's servers. */
  readonly include?: readonly string[];
  /** A tool matching one of these patterns is left out, whatever `include` says. */
  readonly exclude?: readonly string[];
  /** Exposure per tool pattern within the view, over the config's (most specific pattern wins, as in `tools`). */
  readonly exposure?: Readonly<Record<string, ExposureSetting>>;
}

/** The whole validated config with defaults applied. */
export interface Config {
  readonly mcpServers: Readonly<Record<string, ServerConfig>>;
  /** Global default exposure (default `deferred`; docs/configuration.md). */
  readonly exposure: ExposureSetting;
  readonly discovery: DiscoverySettings;
  readonly schemas: { readonly compaction: CompactionBudget; readonly prepare: PrepareOptions };
  readonly naming: NamingSettings;
  readonly bridge: BridgeSettings;
  readonly trace: TraceSettings;
  /** Default for every server's `lazy` (default false). */
  readonly lazy: boolean;
  /** Default for every server's `idleStopMs`, in ms (default 600,000). */
  readonly idleStopMs: number;
  readonly share: ShareSettings;
  /** Named views by name (default none; docs/views.md). */
  readonly views: Readonly<Record<string, ViewConfig>>;
  /** Pins, quarantine and the scanner (docs/security.md); every field has a default. */
  readonly trust: TrustSettings;
  /** Folder the config file sits in: relative `cwd` and ranker paths resolve against it. */
  readonly baseDir: string;
}

/** One problem in a config file, located by JSON path (`/mcpServers/files/command`). */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

/** True for a remote (URL) server entry. */
export function isRemote(server: ServerConfig): server is RemoteServerConfig {
  return typeof (server as RemoteServerConfig).url === 'string';
}
