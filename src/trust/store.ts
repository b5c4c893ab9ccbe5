/**
 * The pin store: one file per config and server, `<state>/pins/<hash of the config path>/<hash of the
 * server key>.json`, 0600 in 0700 folders, written atomically (lib/stateDir.ts). Each load touches the
 * file, so pruning old state by modification time keeps the pins in use. A missing or damaged file is
 * no pins (the next live listing pins afresh), never an error. Source: docs/security.md, "Pins,
 * quarantine and review".
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, utimesSync, watch, type FSWatcher } from 'node:fs';
import { join, resolve } from 'node:path';
import { stableHash, textDigest } from '../lib/hash.js';
import { ensurePrivateDir, writePrivateFile } from '../lib/stateDir.js';
import type { ServerPins } from './judge.js';

/** Bumped when the file's shape changes; a file of another format is no pins. */
export const PINS_FORMAT = 1;

/** The file's content: the pins plus what they belong to (for people reading the folder). */
interface PinsRecord extends ServerPins {
  readonly format: typeof PINS_FORMAT;
  readonly server: string;
  readonly config: string;
}

/** The folder of `configPath`'s pins under `stateDir`. */
export function pinsDir(stateDir: string, configPath: string): string {
  return join(stateDir, 'pins', stableHash(resolve(configPath)));
}

/** Largest pin file read, in bytes: a server with thousands of big schemas fits. */
const MAX_PIN_FILE_BYTES = 64 * 1024 * 1024;

/** Reads and writes one config's pins; `watch` reports files another process changed. */
export class PinStore {
  readonly dir: string;
  /** The digest of each file's text as this store last read or wrote it, by path: a watch event with the same text is no change. */
  private readonly known = new Map<string, string>();
  private watcher: FSWatcher | undefined;

  constructor(
    stateDir: string,
    private readonly configPath: string,
  ) {
    this.dir = pinsDir(stateDir, configPath);
  }

  /** The file of `server`'s pins. */
  pathFor(server: string): string {
    return join(this.dir, `${stableHash(server)}.json`);
  }

  /** `server`'s pins, or undefined when there are none (or the file is damaged). Touches the file. */
  load(server: string): ServerPins | undefined {
    const path = this.pathFor(server);
    const text = readPrivate(path);
    if (text === undefined) return undefined;
    this.known.set(path, textDigest(text));
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // Only pruning reads the time: a file that cannot be touched is still read.
    }
    return asPins(text, server);
  }

  /** Whether `server`'s pin file is there but not a whole record (damaged by hand or by a crash of another program). */
  damaged(server: string): boolean {
    const text = readPrivate(this.pathFor(server));
    return text !== undefined && asPins(text, server) === undefined;
  }

  /**
   * Writes `server`'s pins, unless another process changed the file since this store last read or
   * wrote it (an approval): then nothing is written and false returned, so the caller judges again
   * over the new pins instead of undoing the approval. @throws the file system's error.
   */
  save(server: string, pins: ServerPins): boolean {
    const record: PinsRecord = { format: PINS_FORMAT, server, config: resolve(this.configPath), ...pins };
    const text = JSON.stringify(record, null, 1);
    const path = this.pathFor(server);
    const now = readPrivate(path);
    if (now !== undefined && textDigest(now) !== this.known.get(path)) return false;
    writePrivateFile(path, text);
    this.known.set(path, textDigest(text));
    return true;
  }

  /**
   * Calls `onChange` when another process (`toolshelf approve`) changes a pin file of this config.
   * Creates the folder first, so a gateway that has pinned nothing yet sees the first approval.
   */
  watch(onChange: () => void): void {
    ensurePrivateDir(this.dir);
    this.watcher = watch(this.dir, { persistent: false }, (_event, file) => {
      if (typeof file !== 'string' || !file.endsWith('.json')) return;
      const path = join(this.dir, file);
      const text = readPrivate(path);
      if (text === undefined) return;
      const digest = textDigest(text);
      if (digest === this.known.get(path)) return;
      this.known.set(path, digest);
      onChange();
    });
    this.watcher.on('error', () => this.close());
  }

  /** Stops watching. */
  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}

/** The text of the regular file at `path`, opened without following a link; undefined when absent or not a file. */
function readPrivate(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_PIN_FILE_BYTES) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** `text` as `server`'s pins when it is a whole record of this format; undefined otherwise. */
function asPins(text: string, server: string): ServerPins | undefined {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(record) || record.format !== PINS_FORMAT || record.server !== server) return undefined;
  const { tools, held, instructions, heldInstructions } = record;
  if (!isObject(tools) || !isObject(held)) return undefined;
  const pinLike = (value: unknown): boolean => isObject(value) && typeof value.hash === 'string' && isObject(value.text);
  if (!Object.values(tools).every(pinLike) || !Object.values(held).every((v) => pinLike(v) && Array.isArray((v as Record<string, unknown>).findings))) return undefined;
  if (instructions !== undefined && !(isObject(instructions) && typeof instructions.hash === 'string')) return undefined;
  if (heldInstructions !== undefined && !(isObject(heldInstructions) && typeof heldInstructions.hash === 'string' && typeof heldInstructions.text === 'string')) return undefined;
  if (record.rejected !== undefined && !(isObject(record.rejected) && Object.values(record.rejected).every((hash) => typeof hash === 'string'))) return undefined;
  return record as unknown as ServerPins;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
