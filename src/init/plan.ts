/**
 * `toolshelf init`'s plan (docs/init.md): from the client files' texts and the existing
 * `servers.config.json`, what the merged config is and what each client file becomes (its imported
 * entries replaced by one `toolshelf` entry). Pure: the command reads and writes the files.
 */
import { resolve } from 'node:path';
import { stringify as stringifyToml } from 'smol-toml';
import { isPlainObject } from '../lib/plainObject.js';
import { CLIENT_LABELS, type ClientFile, type ClientId } from './clients.js';
import { convertEntry, isToolshelfEntry, type ServerEntry } from './entries.js';
import { defaultUnsetReferences, mergeEntries, moveSecrets, type FoundEntry } from './merge.js';
import { parseClientFile, serversKey } from './parse.js';

/** How toolshelf is started: the command and arguments each client's entry gets. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
}

/** What was found in one client file. */
export interface FileReport {
  readonly file: ClientFile;
  /** `absent`: no such file; `malformed`: unreadable, left untouched (`why`); `read`: its entries are below. */
  readonly status: 'absent' | 'malformed' | 'read';
  readonly why?: string;
  /** Entries imported: their name in the file and in the merged config. */
  readonly imported: readonly { readonly key: string; readonly as: string }[];
  /** Entries left with the client, each with why. */
  readonly skipped: readonly { readonly key: string; readonly why: string }[];
  /** True when the file already has a toolshelf entry. */
  readonly hasToolshelf: boolean;
}

/** The whole plan. */
export interface InitPlan {
  readonly files: readonly FileReport[];
  /** The merged config's text, and what changed in it. */
  readonly config: { readonly text: string; readonly added: readonly string[]; readonly conflicts: readonly string[]; readonly notes: readonly string[] };
  /** The new text of each client file to rewrite (each with entries imported). */
  readonly rewrites: readonly { readonly file: ClientFile; readonly text: string }[];
  /** VAR → value of the secrets moved to `${VAR}` references (for validation; never printed). */
  readonly secrets: ReadonlyMap<string, string>;
}

/** Inputs of {@link planInit}. */
export interface PlanInput {
  /** Each candidate file with its text (undefined: the file does not exist). */
  readonly files: readonly { readonly file: ClientFile; readonly text: string | undefined }[];
  /** The existing `servers.config.json` document, if any (already parsed and checked to be an object). */
  readonly existing: Record<string, unknown> | undefined;
  readonly launch: Launch;
  /** The project folder, for `${workspaceFolder}` in project files. */
  readonly projectDir?: string;
  /** Keep credentials in servers.config.json as they are, instead of `${VAR}` references. */
  readonly keepSecrets?: boolean;
}

/** Builds the plan. */
export function planInit(input: PlanInput): InitPlan {
  const reports: FileReport[] = [];
  const found: FoundEntry[] = [];
  const foundFiles: number[] = [];
  const parsedDocs = new Map<number, Record<string, unknown>>();
  const notes: string[] = [];
  input.files.forEach(({ file, text }, index) => {
    if (text === undefined) return void reports.push({ file, status: 'absent', imported: [], skipped: [], hasToolshelf: false });
    const parsed = parseClientFile(file, text);
    if (!parsed.ok) return void reports.push({ file, status: 'malformed', why: parsed.why, imported: [], skipped: [], hasToolshelf: false });
    parsedDocs.set(index, parsed.doc);
    const skipped: { key: string; why: string }[] = [];
    let hasToolshelf = false;
    for (const [key, raw] of Object.entries(parsed.servers)) {
      if (isToolshelfEntry(key, raw)) {
        hasToolshelf = true;
        continue;
      }
      const converted = convertEntry(file.client, key, raw, file.scope === 'project' ? input.projectDir : undefined);
      if (!converted.ok) {
        skipped.push({ key, why: converted.why });
        continue;
      }
      notes.push(...converted.notes.map((n) => `${CLIENT_LABELS[file.client]}: ${n}`));
      found.push({ file, key, entry: converted.entry });
      foundFiles.push(index);
    }
    reports.push({ file, status: 'read', imported: [], skipped, hasToolshelf });
  });
  const existingServers = isPlainObject(input.existing?.mcpServers) ? (input.existing.mcpServers as Record<string, ServerEntry>) : {};
  const merged = mergeEntries(existingServers, found);
  const moved = input.keepSecrets ? undefined : moveSecrets(merged.servers, merged.added);
  const unset = defaultUnsetReferences(moved?.servers ?? merged.servers, merged.added, new Set(moved?.values.keys() ?? []));
  const servers = unset.servers;
  // Each file's imported entries, by the order of `input.files`.
  const importedBy = new Map<number, { key: string; as: string }[]>();
  found.forEach((f, i) => importedBy.set(foundFiles[i]!, [...(importedBy.get(foundFiles[i]!) ?? []), { key: f.key, as: merged.keys[i]! }]));
  const files = reports.map((r) => {
    const index = input.files.findIndex((f) => f.file === r.file);
    return { ...r, imported: importedBy.get(index) ?? [] };
  });
  const rewrites = files.flatMap((r) => {
    if (r.imported.length === 0) return [];
    const doc = parsedDocs.get(input.files.findIndex((f) => f.file === r.file))!;
    // Every client now reaches every server through toolshelf, so each needs every moved secret to load the config.
    const env = Object.fromEntries(moved?.values ?? []);
    return [{ file: r.file, text: rewriteClientFile(r.file, doc, r.imported.map((i) => i.key), toolshelfEntry(r.file.client, input.launch, env)) }];
  });
  const config = { ...(input.existing ?? {}), mcpServers: servers };
  return {
    files,
    config: { text: `${JSON.stringify(config, null, 2)}\n`, added: merged.added, conflicts: merged.conflicts, notes: [...notes, ...(moved?.notes ?? []), ...unset.notes] },
    rewrites,
    secrets: moved?.values ?? new Map(),
  };
}

/**
 * The `toolshelf` entry for `client`: the launch command, the moved secrets in `env`, `type: "stdio"`
 * where the client's format names the transport (Claude Code, VS Code), and Claude Code's
 * `alwaysLoad: true`, which keeps toolshelf's few tools out of Claude Code's own tool search
 * (gateway/clients.ts; docs/init.md).
 */
export function toolshelfEntry(client: ClientId, launch: Launch, env: Readonly<Record<string, string>>): Record<string, unknown> {
  const withEnv = Object.keys(env).length > 0 ? { env: { ...env } } : {};
  const base = { command: launch.command, args: [...launch.args], ...withEnv };
  if (client === 'claude-code') return { type: 'stdio', ...base, alwaysLoad: true };
  if (client === 'vscode') return { type: 'stdio', ...base };
  return base;
}

/**
 * `doc` (a client file's document) with the entries `removed` taken out of its servers and `entry`
 * put in as `toolshelf`, as the file's text: JSON with two-space indents (a JSONC file's comments
 * are not kept: its backup has them), or TOML for Codex.
 */
export function rewriteClientFile(file: ClientFile, doc: Readonly<Record<string, unknown>>, removed: readonly string[], entry: Record<string, unknown>): string {
  const key = serversKey(file.format);
  const servers: Record<string, unknown> = {};
  const before = isPlainObject(doc[key]) ? (doc[key] as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(before)) {
    if (removed.includes(name) || name === 'toolshelf') continue;
    Object.defineProperty(servers, name, { value, enumerable: true, writable: true, configurable: true });
  }
  servers.toolshelf = entry;
  const next = { ...doc, [key]: servers };
  return file.format === 'codex-toml' ? `${stringifyToml(next)}\n` : `${JSON.stringify(next, null, 2)}\n`;
}

/**
 * How each client is to start this toolshelf: `node` (this one, `execPath`) on this install's
 * `cliPath`; or, when this install sits in npx's cache (`_npx`), which npm may empty at any time, npx
 * again: on the same local tarball or folder when npx was given one (`localPackage`, absolute: see
 * {@link npxLocalPackage}), else `toolshelf@VERSION` from the registry. Pure.
 */
export function launchFor(cliPath: string, execPath: string, version: string, configPath: string, localPackage?: string): Launch {
  if (!/[\\/]_npx[\\/]/.test(cliPath)) return { command: execPath, args: [cliPath, '--config', configPath] };
  if (localPackage !== undefined) return { command: 'npx', args: ['-y', '--package', localPackage, 'toolshelf', '--config', configPath] };
  return { command: 'npx', args: ['-y', `toolshelf@${version}`, '--config', configPath] };
}

/**
 * The tarball or folder npx was asked to run toolshelf from (`npx --package ./toolshelf-1.0.0.tgz
 * toolshelf`), from the package specs npm hands the command (`npm_config_package`, one per line):
 * a local path made absolute (a relative one is taken from `cwd`, where npx resolved it), or a tarball
 * or git URL as given. Undefined when toolshelf came from a registry spec (`toolshelf@1.0.0`), when no
 * spec names toolshelf's own package (another `--package` beside it), or when there is none. Without
 * this a client entry for a build that is not published would look the name up on the npm registry
 * (docs/init.md). Pure.
 */
export function npxLocalPackage(specs: string | undefined, cwd: string): string | undefined {
  const candidates = (specs ?? '')
    .split('\n')
    .map((spec) => spec.trim())
    .filter((spec) => spec !== '')
    .map((spec) => {
      // A URL (https:, git+https:, file:), possibly after `toolshelf@`; file: becomes a path.
      const url = /^(?:toolshelf@)?([a-z][a-z0-9+.-]*:\/\/.*)$/i.exec(spec)?.[1];
      if (url !== undefined && !/^file:/i.test(url)) return url;
      const path = (url ?? spec).replace(/^file:(\/\/)?/i, '');
      if (/^([\\/]|[A-Za-z]:[\\/])/.test(path)) return path;
      if (/^\.{1,2}([\\/]|$)/.test(path) || /\.(tgz|tar\.gz)$/i.test(path)) return resolve(cwd, path);
      return undefined;
    });
  const own = candidates.filter((spec): spec is string => spec !== undefined && /toolshelf[^\\/]*$/i.test(spec.replace(/[\\/]+$/, '')));
  if (own.length > 0) return own[0];
  // A single package spec that is not a registry name: npx ran toolshelf from it, whatever it is called.
  return candidates.length === 1 ? candidates[0] : undefined;
}
