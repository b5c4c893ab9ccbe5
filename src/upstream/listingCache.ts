/**
 * The catalogue cache: each upstream's last listing (tools, instructions, capabilities) on disk, so a
 * gateway serves `tools/list` at start without spawning anything and starts lazy upstreams on first
 * use. One file per server entry under `<state>/catalog/`, named by a hash of what decides the
 * listing (command, args, env, cwd, url, headers, transport, and the config folder relative paths
 * resolve against): an edited entry gets a new name and is listed afresh; toolshelf's own keys
 * (exposure, keywords, timeouts) change nothing upstream and keep the cache. The record also keeps the
 * upstream's protocol era verdict (era.ts, issue #9 point 4) with when it was probed and the server's
 * name and version then, so it expires. Written atomically, 0600.
 * A missing, unreadable or foreign file is a miss, never an error. Source: issue #11 point 2.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverResult } from '@modelcontextprotocol/client';
import type { UpstreamTool } from '../catalog/types.js';
import { isRemote, type ServerConfig } from '../config/types.js';
import { stableHash } from '../lib/hash.js';
import { writePrivateFile } from '../lib/stateDir.js';
import type { Logger } from '../trace/log.js';
import { isFresh, type EraVerdict, type VerdictStamp } from './era.js';

/** Bumped when the record's shape changes; a record of another format is a miss. */
export const LISTING_FORMAT = 1;

/** What an upstream told us when it was last listed. */
export interface UpstreamListing extends Partial<VerdictStamp> {
  readonly tools: readonly UpstreamTool[];
  /** `instructions` from its initialize result. */
  readonly instructions?: string;
  /** Capabilities from its initialize result (resources and prompts pass-through while it is stopped). */
  readonly capabilities?: Record<string, unknown>;
  /** Protocol era verdict (era.ts): a later start connects with it as `prior` and pays no probe (issue #9 point 4). */
  readonly era?: 'modern' | 'legacy';
  /** The `server/discover` result behind a `modern` verdict (issue #9 point 4). */
  readonly discover?: DiscoverResult;
}

/** The file's content: the listing plus what identifies it. */
export interface ListingRecord extends UpstreamListing {
  readonly format: typeof LISTING_FORMAT;
  /** The server key when it was written (for people reading the folder; the hash is the identity). */
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
 * verdict is no verdict: the next connect probes again and stamps what it finds (issue #9 point 4).
 */
export function cachedVerdict(listing: UpstreamListing, now = Date.now()): EraVerdict | undefined {
  if (!isFresh(listing, now)) return undefined;
  if (listing.era === 'legacy') return { era: 'legacy' };
  return listing.era === 'modern' && listing.discover ? { era: 'modern', discover: listing.discover } : undefined;
}

/** The fields of a server entry that decide what the upstream lists, with `baseDir`. */
function identity(server: ServerConfig, baseDir: string): unknown {
  // `protocol` changes what is spoken, so a cached era verdict of another setting is not reused.
  if (isRemote(server)) return { url: server.url, headers: server.headers, transport: server.transport, protocol: server.protocol };
  return { command: server.command, args: server.args, env: server.env, inheritEnv: server.inheritEnv, cwd: server.cwd, baseDir, protocol: server.protocol };
}

/** The cache under `<stateDir>/catalog/`. */
export class ListingCache implements ListingStore {
  readonly dir: string;

  constructor(
    stateDir: string,
    private readonly baseDir: string,
    private readonly logger: Logger,
  ) {
    this.dir = join(stateDir, 'catalog');
  }

  /** The file for `server`: `upstream-<hash>.json`. */
  pathFor(server: ServerConfig): string {
    return join(this.dir, `upstream-${stableHash(identity(server, this.baseDir))}.json`);
  }

  load(_key: string, server: ServerConfig): UpstreamListing | undefined {
    let record: Partial<ListingRecord>;
    try {
      record = JSON.parse(readFileSync(this.pathFor(server), 'utf8')) as Partial<ListingRecord>;
    } catch {
      return undefined;
    }
    return record.format === LISTING_FORMAT && Array.isArray(record.tools) ? (record as ListingRecord) : undefined;
  }

  save(key: string, server: ServerConfig, listing: UpstreamListing): void {
    const path = this.pathFor(server);
    const record: ListingRecord = { ...listing, format: LISTING_FORMAT, server: key, configHash: stableHash(identity(server, this.baseDir)), listedAt: new Date().toISOString() };
    try {
      writePrivateFile(path, JSON.stringify(record));
    } catch (error) {
      this.logger.debug(`catalogue cache: cannot write ${path}: ${(error as Error).message}`);
    }
  }
}
