/**
 * Merges the entries found in client files into one `mcpServers` (docs/init.md): an entry identical
 * to one already there (in the existing config or from another client) is kept once; a name taken by
 * a different entry keeps the first one, and the later one goes under `NAME-CLIENT` (then `-2`, `-3`…),
 * named in a conflict line. Then secrets in `env` and `headers` are moved to `${VAR}` references.
 * Pure.
 */
import { stableJson } from '../lib/hash.js';
import type { ClientFile } from './clients.js';
import type { ServerEntry } from './entries.js';

/** One converted entry and the file it came from. */
export interface FoundEntry {
  readonly file: ClientFile;
  readonly key: string;
  readonly entry: ServerEntry;
}

/** The merge's outcome. `keys[i]` is the key `found[i]` has in `servers`. */
export interface Merged {
  readonly servers: Record<string, ServerEntry>;
  readonly keys: readonly string[];
  /** Keys added to the config, in order. */
  readonly added: readonly string[];
  /** One line per name two different entries claimed. */
  readonly conflicts: readonly string[];
}

/** Merges `found` into `existing` (the config's `mcpServers`, kept as it is). */
export function mergeEntries(existing: Readonly<Record<string, ServerEntry>>, found: readonly FoundEntry[]): Merged {
  const servers: Record<string, ServerEntry> = {};
  for (const [k, v] of Object.entries(existing)) setOwn(servers, k, v);
  const origin = new Map<string, string>(Object.keys(existing).map((k) => [k, 'the existing config']));
  const added: string[] = [];
  const conflicts: string[] = [];
  const keys = found.map(({ file, key, entry }) => {
    const same = (k: string): boolean => Object.hasOwn(servers, k) && stableJson(servers[k]) === stableJson(entry);
    if (same(key)) return key;
    let chosen = key;
    if (Object.hasOwn(servers, key)) {
      const base = `${key}-${file.client}`;
      chosen = base;
      for (let n = 2; Object.hasOwn(servers, chosen) && !same(chosen); n += 1) chosen = `${base}-${n}`;
      if (same(chosen)) return chosen;
      conflicts.push(`"${key}" from ${file.path} differs from the one from ${origin.get(key)}; both kept, this one as "${chosen}"`);
    }
    setOwn(servers, chosen, entry);
    origin.set(chosen, file.path);
    added.push(chosen);
    return chosen;
  });
  return { servers, keys, added, conflicts };
}

/** A variable or header name that holds a credential (as upstream/failure.ts masks them). */
const SECRET_NAME = /(key|token|secret|passw(or)?d|credential|auth|cookie|session|pat$)/i;

/** The secrets moved out of the config: each `${VAR}`'s value. */
export interface MovedSecrets {
  readonly servers: Record<string, ServerEntry>;
  /** VAR → value, for the environment of the client that starts toolshelf. */
  readonly values: ReadonlyMap<string, string>;
  /** One line per value moved. */
  readonly notes: readonly string[];
}

/** `text` as a variable name: upper case, anything but letters, digits and `_` as `_`. */
function variableName(text: string): string {
  const name = text.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
  return /^[A-Z_]/.test(name) ? name : `_${name}`;
}

/**
 * Moves each credential-looking value of `env` and `headers` in the entries of `keys` to a `${VAR}`
 * reference: an env variable keeps its name (the server's key goes in front when another server
 * needs the same name for another value), a header becomes `SERVER_HEADER`. A value that already
 * is a `${VAR}` reference stays.
 */
export function moveSecrets(servers: Readonly<Record<string, ServerEntry>>, keys: readonly string[]): MovedSecrets {
  const out: Record<string, ServerEntry> = {};
  for (const [k, v] of Object.entries(servers)) setOwn(out, k, v);
  const values = new Map<string, string>();
  const notes: string[] = [];
  const claim = (wanted: string, fallback: string, value: string): string => {
    for (const name of [wanted, fallback]) if (!values.has(name) || values.get(name) === value) return name;
    let n = 2;
    while (values.has(`${fallback}_${n}`) && values.get(`${fallback}_${n}`) !== value) n += 1;
    return `${fallback}_${n}`;
  };
  for (const key of new Set(keys)) {
    const entry = out[key];
    if (!entry) continue;
    const next: ServerEntry = { ...entry };
    for (const field of ['env', 'headers'] as const) {
      const map = entry[field] as Record<string, string> | undefined;
      if (!map) continue;
      const copy: Record<string, string> = { ...map };
      for (const [name, value] of Object.entries(map)) {
        if (!SECRET_NAME.test(name) || value.length === 0 || /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value)) continue;
        const wanted = field === 'env' ? variableName(name) : variableName(`${key}_${name}`);
        const variable = claim(wanted, variableName(`${key}_${name}`), value);
        values.set(variable, value);
        copy[name] = `\${${variable}}`;
        notes.push(`"${key}": ${field}.${name} is now \${${variable}}; its value goes in the env of each toolshelf entry written`);
      }
      next[field] = copy;
    }
    setOwn(out, key, next);
  }
  return { servers: out, values, notes };
}

/** A plain `${NAME}` reference that is not escaped (`$${` is a literal `${`; config/interpolate.ts). */
const PLAIN_REFERENCE = /(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Gives each plain `${NAME}` in the entries `keys` that no toolshelf entry sets (`provided`) an empty
 * default, `${NAME:-}`, with a note. Such a reference came from a client that filled it from its own
 * environment (`${env:GH_TOKEN}` in Cursor); the clients that start toolshelf now may not have NAME,
 * and toolshelf refuses a whole config with an unset `${NAME}` (docs/configuration.md): one server
 * without its token should not take every other server with it. A value set later is still used.
 * Pure.
 */
export function defaultUnsetReferences(servers: Readonly<Record<string, ServerEntry>>, keys: readonly string[], provided: ReadonlySet<string>): MovedSecrets {
  const out: Record<string, ServerEntry> = {};
  for (const [k, v] of Object.entries(servers)) setOwn(out, k, v);
  const notes: string[] = [];
  for (const key of new Set(keys)) {
    const entry = out[key];
    if (!entry) continue;
    const named = new Set<string>();
    const soften = (value: unknown): unknown => {
      if (typeof value === 'string')
        return value.replace(PLAIN_REFERENCE, (whole, name: string) => {
          if (provided.has(name)) return whole;
          named.add(name);
          return `\${${name}:-}`;
        });
      if (Array.isArray(value)) return value.map(soften);
      if (typeof value === 'object' && value !== null) {
        const copy: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value)) setOwn(copy, k, soften(v));
        return copy;
      }
      return value;
    };
    setOwn(out, key, soften(entry) as ServerEntry);
    for (const name of named) notes.push(`"${key}" reads \${${name}}, which no toolshelf entry sets: set ${name} where your clients start toolshelf; until then "${key}" starts without it (written \${${name}:-})`);
  }
  return { servers: out, values: new Map(), notes };
}

/** Sets `key` as an own property (a key from a file may be `__proto__`). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
