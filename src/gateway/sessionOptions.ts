/**
 * What every client's server is built from, in either era: {@link SessionOptions} (given by the
 * composition root, toolshelf.ts), the discovery and bridge settings read from the config, and the
 * limits both eras share (sessions or held calls at once, how long a client may take to answer).
 * Types and constants only, besides {@link sessionSettings}. Source: docs/architecture.md, docs/configuration.md.
 */
import type { NamingOptions } from '../catalog/naming.js';
import type { Config } from '../config/types.js';
import type { TraceSink } from '../trace/events.js';
import type { Logger } from '../trace/log.js';
import type { DiscoveryModeSetting } from './clients.js';
import type { DispatchSettings } from './dispatch.js';
import type { SharedRoutes } from './passthrough.js';
import type { UpstreamSubscriptions } from './subscriptions.js';
import type { Admit, CheckOutput, Shelf, UpstreamCaller, UpstreamDirectory } from './types.js';

/**
 * Most clients served at once: legacy HTTP sessions (each holds an SDK Server and its promotions;
 * 2,000 initializes in 3 s grew RSS by 94 MB: `test/gateway/fronts/http.test.ts`), and in the 2026-07-28 era held calls and listen
 * streams. At the cap a new legacy initialize closes the least recently used idle session; only when
 * every session is busy does it get 503 (docs/http.md). `TOOLSHELF_MAX_SESSIONS` overrides it for
 * HTTP sessions and listen streams (fronts/http.ts `maxSessionsFromEnv`).
 */
export const MAX_SESSIONS = 1000;

/** How long a client may take to answer a relayed sampling or elicitation request, in ms (a person may be answering). */
export const RELAY_TIMEOUT_MS = 600_000;

/** Everything a client's server (a legacy session, or a modern request's server) is given by the composition root. */
export interface SessionOptions {
  readonly id: string;
  readonly version: string;
  readonly shelf: () => Shelf;
  readonly caller: UpstreamCaller;
  readonly admit: Admit;
  /** Checks each result against the outputSchema the client was given (schema/output.ts). */
  readonly checkOutput?: CheckOutput;
  readonly trace: TraceSink;
  readonly logger: Logger;
  /** The initialize `instructions` (default `SHELF_INSTRUCTIONS`; with upstream ones, see instructions.ts). */
  readonly instructions?: string;
  readonly settings: DispatchSettings & {
    readonly callTool: 'auto' | 'always' | 'never';
    /** `discovery.mode` and `discovery.alwaysLoad` (docs/clients.md). */
    readonly discoveryMode: DiscoveryModeSetting;
    readonly alwaysLoad: boolean;
  };
  /** UTF-8 bytes and estimated tokens of a value's compact JSON (schema/measure). */
  readonly measure: (value: unknown) => { bytes: number; tokens: number };
  /**
   * Largest tool result in bytes this client can take, if it has a limit: the SDK's stdio clients drop
   * the connection on a line over 10 MiB, so an over-size result becomes an `isError` instead.
   */
  readonly maxResultBytes?: number;
  /** Resources, prompts, completion and logging from upstreams (passthrough.ts). */
  readonly passthrough: {
    readonly directory: UpstreamDirectory;
    readonly routes: SharedRoutes;
    readonly naming: NamingOptions;
    readonly prefixed: (server: string) => boolean;
    /** The process's upstream resource subscriptions, shared by every client of both eras (subscriptions.ts). */
    readonly upstreamSubscriptions: UpstreamSubscriptions;
  };
}

/** A session's discovery and bridge settings, read from `config` (`discovery`, `bridge`, `trace` keys). */
export function sessionSettings(config: Config): SessionOptions['settings'] {
  return {
    discoveryEnabled: config.discovery.enabled,
    defaultLimit: config.discovery.defaultLimit,
    maxLimit: config.discovery.maxLimit,
    captureToolIo: config.trace.captureToolIo,
    callTool: config.bridge.callTool,
    confirm: { confirm: config.bridge.confirm, unaskable: config.bridge.unaskable },
    discoveryMode: config.discovery.mode,
    alwaysLoad: config.discovery.alwaysLoad,
  };
}
