/**
 * The trust checks applied to every upstream's listing before the shelf is built: each listing judged
 * against its pins (trust/judge.ts), pins written back, and each new warning given once on stderr,
 * in the trace, and to a shared instance's clients. Source: docs/security.md, "Pins, quarantine and
 * review" and "The scanner".
 */
import { serverPrefixes } from '../catalog/naming.js';
import type { UpstreamTool } from '../catalog/types.js';
import { trustFor } from '../config/defaults.js';
import type { Config } from '../config/types.js';
import type { TraceSink } from '../trace/events.js';
import type { Logger } from '../trace/log.js';
import { printableLine } from '../lib/printable.js';
import { judgeListing, type HeldVersion, type Judgement, type Listing, type ListingSource, type ServerPins } from './judge.js';
import type { ScanContext } from './scan.js';

/** Where pins are read and written: the state folder's {@link import('./store.js').PinStore}, or memory. */
export interface PinSource {
  load(server: string): ServerPins | undefined;
  /** False when the pins changed since they were loaded (another process wrote them): nothing was written. @throws when they cannot be written. */
  save(server: string, pins: ServerPins): boolean;
  /** Whether `server`'s pins are there but unreadable (trust/store.ts); absent: never. */
  damaged?(server: string): boolean;
}

/** Pins kept in memory for the life of the process (no state folder). */
export function memoryPins(): PinSource {
  const pins = new Map<string, ServerPins>();
  return {
    load: (server) => pins.get(server),
    save: (server, value) => {
      pins.set(server, value);
      return true;
    },
  };
}

/** `store` read, writes kept in memory over it: `inspect` and `search` judge as a gateway would without changing the pins. */
export function readOnlyPins(store: PinSource): PinSource {
  const written = new Map<string, ServerPins>();
  return {
    load: (server) => written.get(server) ?? store.load(server),
    damaged: (server) => !written.has(server) && store.damaged?.(server) === true,
    save: (server, value) => {
      written.set(server, value);
      return true;
    },
  };
}

/** What the shelf is built with: the held tools per server, and the servers whose instructions are held. */
export interface TrustView {
  readonly held: ReadonlyMap<string, ReadonlyMap<string, HeldVersion>>;
  readonly instructionsHeld: ReadonlySet<string>;
}

/** An upstream's listing as the pool gives it. */
export interface PoolListing {
  readonly tools: readonly UpstreamTool[];
  readonly instructions?: string;
  readonly source: ListingSource;
}

/** Where the keeper's news goes besides the log. */
export interface KeeperHooks {
  readonly trace?: TraceSink;
  /** Every warning about a tool or instructions held now, replacing the last set (a shared instance's status file). */
  readonly announce?: (lines: readonly string[]) => void;
}

/** Longest warning line, in characters (excerpts are short, but a tool name may be long). */
const MAX_WARNING_CHARS = 2000;

/** Judges listings and keeps the pins; one per open shelf. */
export class TrustKeeper {
  /** Warnings given so far, by server and key: a re-list that changes nothing repeats nothing. */
  private readonly warned = new Set<string>();
  private announced = '';

  constructor(
    private readonly pins: PinSource,
    private readonly logger: Logger,
    private readonly hooks: KeeperHooks = {},
  ) {}

  /** Judges every configured server's listing, writes changed pins, gives new warnings, and returns what to hold. */
  judge(config: Config, listings: ReadonlyMap<string, PoolListing>): TrustView {
    const held = new Map<string, ReadonlyMap<string, HeldVersion>>();
    const instructionsHeld = new Set<string>();
    const prefixes = serverPrefixes(Object.keys(config.mcpServers), config.naming.separator);
    const heldLines: string[] = [];
    for (const [server, listing] of listings) {
      if (!Object.hasOwn(config.mcpServers, server)) continue;
      const others = [...prefixes].filter(([key]) => key !== server);
      const otherTools = new Map(others.map(([key, prefix]) => [prefix, listings.get(key)?.tools.map((tool) => tool.name) ?? []]));
      const verdict = this.judgeOne(server, { server, ...listing }, config, { otherPrefixes: others.map(([, prefix]) => prefix), separator: config.naming.separator, otherTools });
      if (verdict.held.size > 0) held.set(server, verdict.held);
      if (verdict.instructionsHeld) instructionsHeld.add(server);
      for (const warning of verdict.warnings) {
        if (warning.held) heldLines.push(printableLine(warning.text, MAX_WARNING_CHARS));
        const fresh = this.once(`${server}\u0000${warning.key}`, warning.text);
        if (!fresh) continue;
        const findings = warning.tool === undefined ? undefined : verdict.held.get(warning.tool)?.findings;
        this.hooks.trace?.record({
          event: 'tool_held',
          server,
          ...(warning.tool !== undefined ? { tool: warning.tool } : {}),
          reason: warning.reason,
          held: warning.held,
          ...(findings && findings.length > 0 ? { findings: [...new Set(findings.map((f) => f.kind))] } : {}),
        });
      }
    }
    const text = heldLines.join('\n');
    if (text !== this.announced) {
      this.announced = text;
      this.hooks.announce?.(heldLines);
    }
    return { held, instructionsHeld };
  }

  /**
   * Judges one listing and writes the pins it changed; when another process (an approval) wrote them
   * since they were read, judges once more over what it wrote.
   */
  private judgeOne(server: string, listing: Listing, config: Config, context: ScanContext): Judgement {
    for (let attempt = 0; ; attempt += 1) {
      let pins = this.pins.load(server);
      let policy = trustFor(config, server);
      // Damaged pins are no pins to trust: judging them as none would pin whatever is listed now, a
      // rug pull included. Every tool is held as new until a person approves it.
      if (pins === undefined && this.pins.damaged?.(server)) {
        this.once(`damaged\u0000${server}`, `upstream "${server}": its pin file is damaged; every tool of it is held for review (toolshelf review, then toolshelf approve ${server})`);
        pins = { tools: {}, held: {} };
        policy = { ...policy, newTools: 'hold' };
      }
      const verdict = judgeListing(listing, pins, policy, context);
      if (verdict.pins === undefined || verdict.pins === pins) return verdict;
      try {
        if (this.pins.save(server, verdict.pins) || attempt > 0) return verdict;
      } catch (error) {
        this.once(`save\u0000${server}`, `upstream "${server}": cannot write its pins: ${(error as Error).message}`);
        return verdict;
      }
    }
  }

  /** Warns `text` unless `key` was warned before; true when it was new. */
  private once(key: string, text: string): boolean {
    if (this.warned.has(key)) return false;
    this.warned.add(key);
    // Tool names and excerpts are the upstream's: one printable line, controls escaped.
    this.logger.warn(printableLine(text, MAX_WARNING_CHARS));
    return true;
  }
}
