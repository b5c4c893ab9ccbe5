/**
 * The catalogue cache: each upstream's last listing (tools, instructions, capabilities) on disk, so a
 * gateway serves `tools/list` at start without spawning anything and starts lazy upstreams on first
 * use. One file per server entry under `<state>/catalog/`, named by a hash of the server key and what
 * decides the listing (command, args, env, cwd, url, headers, transport, and the config folder relative
 * paths resolve against): an edited entry gets a new name and is listed afresh; two entries with the
 * same launch spec are two upstreams (each adds tools at run time on its own) and get a file each;
 * toolshelf's own keys (exposure, keywords, timeouts) change nothing upstream and keep the cache.
 * Loading a file refreshes its mtime, which is how the state folder's pruning tells a file in use
 * (docs/operations.md). The record also keeps the
 * upstream's protocol era verdict (era.ts) with when it was probed and the server's
 * name and version then, so it expires. Written atomically, 0600.
 * A missing, unreadable, foreign or damaged file (one whose tools, instructions or capabilities are not
 * what a listing gives) is a miss, never an error. A state or `catalog/` folder, or a file, that is not
 * the user's alone (another user's, or writable by others) is not used at all, with one warning: the
 * cache is never a source of trust (docs/security.md, "Local state and environment"). Source: docs/operations.md.
 */
import { join } from 'node:path';
import type { DiscoverResult } from '@modelcontextprotocol/client';
import { DiscoverResultSchema } from '@modelcontextprotocol/core';
import type { UpstreamTool } from '../catalog/types.js';
import { isRemote, type ServerConfig } from '../config/types.js';
import { stableHash } from '../lib/hash.js';
import { privateDirProblem, readPrivateFile, touch, UnsafeStateError, writePrivateFile } from '../lib/stateDir.js';
import type { Logger } from '../trace/log.js';
import { isFresh, type EraVerdict, type VerdictStamp } from './eraVerdict.js';
import { parseToolsPage } from './listTools.js';

/** Bumped when the record's shape changes; a record of another format is a miss. */
export const LISTING_FORMAT = 1;

/** What an upstream told us when it was last listed. */
export interface UpstreamListing extends Partial<VerdictStamp> {
  readonly tools: readonly UpstreamTool[];
  /** `instructions` from its initialize result. */
  readonly instructions?: string;
  /** Capabilities from its initialize result (resources and prompts pass-through while it is stopped). */
  readonly capabilities?: Record<string, unknown>;
  /** Protocol era verdict (era.ts): a later start connects with it as `prior` and pays no probe. */
  readonly era?: 'modern' | 'legacy';
  /** The `server/discover` result behind a `modern` verdict. */
  readonly discover?: DiscoverResult;
}

/** The file's content: the listing plus what identifies it. */
export interface ListingRecord extends UpstreamListing {
  readonly format: typeof LISTING_FORMAT;
  /** The server key (also part of the hashed identity: two entries with one launch spec are two upstreams). */
  readonly server: string;
  readonly configHash: string;
  /** ISO 8601 time of the listing. */
  readonly listedAt: string;
}

/** Loads and saves listings; satisfies the connection's `ListingStore`. */
export interface ListingStore {
  load(key: string, server: ServerConfig): UpstreamListing | undefined;
  save(key: string, server: ServerConfig, listing: UpstreamListing): void;
}

/**
 * The era verdict in `listing`, if it holds a whole one (a `modern` era needs its discover result)
 * that is still fresh at `now` (ms; era.ts {@link isFresh}: stamped less than 7 days ago). A stale
 * verdict is no verdict: the next connect probes again and stamps what it finds.
 */
export function cachedVerdict(listing: UpstreamListing, now = Date.now()): EraVerdict | undefined {
  if (!isFresh(listing, now)) return undefined;
  if (listing.era === 'legacy') return { era: 'legacy' };
  // A damaged discover result is no verdict: the SDK refuses it as a prior, and the start would fail once.
  return listing.era === 'modern' && DiscoverResultSchema.safeParse(listing.discover).success ? { era: 'modern', discover: listing.discover! } : undefined;
}

/**
 * What identifies one upstream's listing: its server `key` and the fields of its entry that decide
 * what it lists, with `baseDir`. The key is part of it because two entries with the same launch spec
 * are separate processes whose listings can differ (a tool added at run time by one of them).
 */
function identity(key: string, server: ServerConfig, baseDir: string): unknown {
  // `protocol` changes what is spoken, so a cached era verdict of another setting is not reused.
  if (isRemote(server)) return { key, url: server.url, headers: server.headers, transport: server.transport, protocol: server.protocol };
  return { key, command: server.command, args: server.args, env: server.env, inheritEnv: server.inheritEnv, cwd: server.cwd, baseDir, protocol: server.protocol };
}

/** The cache under `<stateDir>/catalog/`. */
export class ListingCache implements ListingStore {
  readonly dir: string;
  /** Why the cache is not used (its folders are not the user's alone), once known; '' when they are. */
  private refused: string | undefined;
  /** Files already warned about, so each is named once. */
  private readonly warned = new Set<string>();

  constructor(
    private readonly stateDir: string,
    private readonly baseDir: string,
    private readonly logger: Logger,
  ) {
    this.dir = join(stateDir, 'catalog');
  }

  /** False (after one warning) when the state or catalogue folder is not the user's alone. */
  private usable(): boolean {
    if (this.refused === undefined) {
      this.refused = privateDirProblem(this.dir, this.stateDir) ?? '';
      if (this.refused !== '') this.logger.warn(`catalogue cache not used: ${this.refused}`);
    }
    return this.refused === '';
  }

  private warnOnce(path: string, message: string): void {
    if (this.warned.has(path)) return;
    this.warned.add(path);
    this.logger.warn(`catalogue cache: ${message}; listing the upstream afresh`);
  }

  /** The file for entry `key` with `server`: `upstream-<hash>.json`. */
  pathFor(key: string, server: ServerConfig): string {
    return join(this.dir, `upstream-${stableHash(identity(key, server, this.baseDir))}.json`);
  }

  /** The listing saved for `key` with `server`, or undefined (a miss). A hit refreshes the file's mtime. */
  load(key: string, server: ServerConfig): UpstreamListing | undefined {
    if (!this.usable()) return undefined;
    const path = this.pathFor(key, server);
    let record: unknown;
    try {
      const text = readPrivateFile(path);
      if (text === undefined) return undefined;
      record = JSON.parse(text);
    } catch (error) {
      if (error instanceof UnsafeStateError) this.warnOnce(path, error.message);
      return undefined;
    }
    const listing = asListing(record);
    if (!listing) {
      this.logger.debug(`catalogue cache: ${path} is not a listing of this version; listing the upstream afresh`);
      return undefined;
    }
    touch(path);
    return listing;
  }

  save(key: string, server: ServerConfig, listing: UpstreamListing): void {
    if (!this.usable()) return;
    const path = this.pathFor(key, server);
    const record: ListingRecord = { ...listing, format: LISTING_FORMAT, server: key, configHash: stableHash(identity(key, server, this.baseDir)), listedAt: new Date().toISOString() };
    try {
      writePrivateFile(path, JSON.stringify(record), this.stateDir);
    } catch (error) {
      if (error instanceof UnsafeStateError) return this.warnOnce(path, error.message);
      this.logger.debug(`catalogue cache: cannot write ${path}: ${(error as Error).message}`);
    }
  }
}

/**
 * `record` as a listing of this format, or undefined unless it is a whole one: every tool one a live
 * listing would keep (listTools.ts {@link parseToolsPage}: an object with a name and an object
 * inputSchema, no duplicate; a non-string description removed as there), `instructions` a string and
 * `capabilities` an object when present. A damaged file served as a listing crashed the gateway at
 * start (`"tools": [null]`, `"instructions": 7`).
 */
function asListing(record: unknown): ListingRecord | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const { format, tools, instructions, capabilities } = record as Partial<Record<keyof ListingRecord, unknown>>;
  if (format !== LISTING_FORMAT || !Array.isArray(tools)) return undefined;
  const parsed = parseToolsPage(tools);
  if (parsed.skipped.length > 0) return undefined;
  if (instructions !== undefined && typeof instructions !== 'string') return undefined;
  if (capabilities !== undefined && (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities))) return undefined;
  return { ...(record as ListingRecord), tools: parsed.tools };
}
