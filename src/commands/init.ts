/**
 * `toolshelf init`: gathers the MCP server entries of the clients installed for this user into one
 * `servers.config.json` and, with `--apply`, replaces them in each client's config by one `toolshelf`
 * entry, keeping a timestamped backup beside each file it changes; `--undo` puts the last apply's files
 * back. A dry run (the default) writes nothing. The rules are in `init/`; this module reads and writes.
 * See docs/init.md.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseConfig } from '../config/load.js';
import { problemLine } from '../config/report.js';
import { CLIENT_IDS, CLIENT_LABELS, clientFiles, defaultConfigPath, type ClientId } from '../init/clients.js';
import { launchFor, npxLocalPackage, planInit, type InitPlan } from '../init/plan.js';
import { isPlainObject } from '../lib/plainObject.js';
import { referencedVariables } from '../share/paths.js';
import { printableLine } from '../lib/printable.js';
import { ensurePrivateDir, stateDir } from '../lib/stateDir.js';
import { argumentError, type ArgOptions, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, VERSION } from './common.js';

export const INIT_USAGE = `Usage: toolshelf init [--config FILE] [--client ID[,ID…]] [--project DIR] [--keep-secrets] [--apply | --undo]

Gathers the MCP servers of Claude Desktop, Claude Code, Cursor, VS Code, Windsurf and Codex into one
servers.config.json and prints what would change. Nothing is written without --apply.
  --config FILE    the servers.config.json to write or merge into (default: ${defaultConfigHint()})
  --client IDS     only these clients: ${CLIENT_IDS.join(', ')}
  --project DIR    also read the project files of DIR (.mcp.json, .cursor/mcp.json, .vscode/mcp.json;
                   default: the current folder)
  --keep-secrets   copy credentials in env and headers as they are, instead of \${VAR} references
  --apply          write servers.config.json and replace each client's entries by one toolshelf entry,
                   keeping a timestamped backup beside each file changed
  --undo           put back the files the last --apply changed (unless edited since)`;

/** The default config path for this machine, for the usage text. */
function defaultConfigHint(): string {
  try {
    return defaultConfigPath(process.platform, process.env);
  } catch {
    return '<config folder>/toolshelf/servers.config.json';
  }
}

const INIT_OPTIONS = {
  config: { type: 'string', short: 'c' },
  client: { type: 'string', multiple: true },
  project: { type: 'string' },
  'keep-secrets': { type: 'boolean' },
  apply: { type: 'boolean' },
  undo: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies ArgOptions;

/** The CLI entry every client's toolshelf entry starts, beside this folder in `dist/`. */
const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));

/** Longest line printed for one file or entry, in characters (names and paths come from the files). */
const MAX_LINE_CHARS = 400;

/** One file an apply wrote: where, its backup (none: init created it), and the SHA-256 of what it wrote. */
interface Written {
  readonly path: string;
  readonly backup?: string;
  readonly sha256: string;
}

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** Runs `toolshelf init`; returns the exit code. */
export async function runInit(argv: string[], out: (line: string) => void): Promise<number> {
  const err = (line: string): void => void process.stderr.write(`${line}\n`);
  let values: ReturnType<typeof parseArgs<{ options: typeof INIT_OPTIONS }>>['values'];
  try {
    values = parseArgs({ args: argv, options: INIT_OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    err(`toolshelf: ${argumentError(error, INIT_OPTIONS)}\n${INIT_USAGE}`);
    return EXIT_USAGE;
  }
  if (values.help) return out(INIT_USAGE), EXIT_OK;
  if (values.apply && values.undo) return err('toolshelf init: --apply and --undo exclude each other'), EXIT_USAGE;
  const chosen = (values.client ?? []).flatMap((c) => c.split(',')).map((c) => c.trim()).filter(Boolean);
  const unknown = chosen.filter((c) => !(CLIENT_IDS as readonly string[]).includes(c));
  if (unknown.length > 0) return err(`toolshelf init: unknown client ${unknown.map((c) => `"${printableLine(c, 40)}"`).join(', ')}; the clients are ${CLIENT_IDS.join(', ')}`), EXIT_USAGE;
  const manifests = join(stateDir(process.env), 'init');
  if (values.undo) return undo(manifests, out);
  let configPath: string;
  try {
    configPath = resolve(values.config ?? defaultConfigPath(process.platform, process.env));
  } catch (error) {
    return err(`toolshelf init: ${(error as Error).message}`), EXIT_USAGE;
  }
  const projectDir = resolve(values.project ?? process.cwd());
  const files = clientFiles(process.platform, process.env, projectDir)
    .filter((f) => chosen.length === 0 || chosen.includes(f.client))
    .map((file) => ({ file, text: readText(file.path) }));
  const existing = readText(configPath);
  if (existing instanceof Error) return err(`toolshelf init: ${configPath} cannot be read: ${existing.message}`), EXIT_FAILURE;
  let existingDoc: Record<string, unknown> | undefined;
  if (existing !== undefined) {
    try {
      existingDoc = JSON.parse(existing) as Record<string, unknown>;
    } catch (error) {
      return err(`toolshelf init: ${configPath} is not valid JSON (${(error as Error).message}); fix it or pick another --config`), EXIT_FAILURE;
    }
    if (!isPlainObject(existingDoc) || (existingDoc.mcpServers !== undefined && !isPlainObject(existingDoc.mcpServers))) {
      return err(`toolshelf init: ${configPath} has no "mcpServers" object to merge into; fix it or pick another --config`), EXIT_FAILURE;
    }
  }
  const plan = planInit({
    files: files.map((f) => ({ file: f.file, text: typeof f.text === 'string' ? f.text : undefined })),
    existing: existingDoc,
    launch: launchFor(CLI, process.execPath, VERSION, configPath, npxLocalPackage(process.env.npm_config_package, process.cwd())),
    projectDir,
    keepSecrets: values['keep-secrets'] === true,
  });
  // A file that exists but cannot be read is reported as such and left alone.
  const unreadable = new Map(files.filter((f) => f.text instanceof Error).map((f) => [f.file.path, (f.text as Error).message]));
  report(plan, configPath, existing !== undefined, unreadable, out);
  // Checked for its shape: each ${VAR} counts as set (a client sets them when it starts toolshelf).
  const stand = Object.fromEntries(referencedVariables(plan.config.text).map((name) => [name, plan.secrets.get(name) ?? process.env[name] ?? 'x']));
  const checked = parseConfig(plan.config.text, stand, dirname(configPath));
  if (!checked.ok) {
    err(`toolshelf init: the merged config would have ${checked.error.length} problem(s), so nothing is written:`);
    for (const problem of checked.error) err(printableLine(problemLine(problem), MAX_LINE_CHARS));
    return EXIT_FAILURE;
  }
  if (plan.config.added.length === 0 && plan.rewrites.length === 0) return out('Nothing to do.'), EXIT_OK;
  if (!values.apply) return out('Dry run: nothing was written. Run `toolshelf init --apply` to make these changes.'), EXIT_OK;
  return apply(plan, configPath, manifests, out);
}

/** A file's text; undefined when it does not exist; the error when it exists but cannot be read. */
function readText(path: string): string | undefined | Error {
  if (!existsSync(path)) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return error as Error;
  }
}

/** Prints what was found and what would change. */
function report(plan: InitPlan, configPath: string, configExists: boolean, unreadable: ReadonlyMap<string, string>, out: (line: string) => void): void {
  const say = (line: string): void => out(printableLine(line, MAX_LINE_CHARS));
  const present = plan.files.filter((f) => f.status !== 'absent' || unreadable.has(f.file.path));
  say(`Client config files found: ${present.length}`);
  for (const f of present) {
    const where = `  ${CLIENT_LABELS[f.file.client]} (${f.file.scope}) ${f.file.path}`;
    if (unreadable.has(f.file.path)) say(`${where}: cannot be read (${unreadable.get(f.file.path)}); left untouched`);
    else if (f.status === 'malformed') say(`${where}: ${f.why}; left untouched`);
    else {
      const names = f.imported.map((i) => (i.as === i.key ? i.key : `${i.key} (as ${i.as})`));
      say(`${where}: ${names.length} server(s)${names.length > 0 ? `: ${names.join(', ')}` : ''}${f.hasToolshelf ? '; has a toolshelf entry' : ''}`);
    }
    for (const s of f.skipped) say(`    "${s.key}" stays with the client: ${s.why}`);
  }
  const { added, conflicts, notes } = plan.config;
  say(`${configPath} (${configExists ? 'merged into' : 'new'}): ${added.length > 0 ? `adds ${added.join(', ')}` : 'nothing to add'}`);
  for (const line of conflicts) say(`  conflict: ${line}`);
  for (const line of notes) say(`  note: ${line}`);
  for (const r of plan.rewrites) say(`rewrite ${r.file.path}: its imported servers replaced by one "toolshelf" entry (backup beside it)`);
}

/** Writes the plan: backups first, then each file; records what it wrote for --undo. */
function apply(plan: InitPlan, configPath: string, manifests: string, out: (line: string) => void): number {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const targets = [{ path: configPath, text: plan.config.text, mode: 0o600 }, ...plan.rewrites.map((r) => ({ path: r.file.path, text: r.text, mode: undefined }))];
  const written: Written[] = [];
  for (const { path, text, mode } of targets) {
    let backup: string | undefined;
    if (existsSync(path)) {
      backup = `${path}.toolshelf-backup-${stamp}`;
      copyFileSync(path, backup);
    } else {
      mkdirSync(dirname(path), { recursive: true });
    }
    writeFileSync(path, text, mode !== undefined ? { mode } : {});
    written.push({ path, ...(backup ? { backup } : {}), sha256: sha256(text) });
    out(printableLine(`wrote ${path}${backup ? ` (backup ${backup})` : ''}`, MAX_LINE_CHARS));
  }
  ensurePrivateDir(manifests);
  writeFileSync(join(manifests, `${stamp}.json`), JSON.stringify({ stamp, written }, null, 2), { mode: 0o600 });
  out('Restart each client to use toolshelf. `toolshelf init --undo` puts these files back.');
  return EXIT_OK;
}

/** Puts back the files of the last apply not undone yet; a file edited since is left as it is. */
function undo(manifests: string, out: (line: string) => void): number {
  const last = existsSync(manifests) ? readdirSync(manifests).filter((f) => /^[^.]+\.json$/.test(f) && !f.endsWith('.undone.json')).sort().at(-1) : undefined;
  if (!last) return out('Nothing to undo: no `toolshelf init --apply` recorded.'), EXIT_OK;
  const manifest = join(manifests, last);
  const { written } = JSON.parse(readFileSync(manifest, 'utf8')) as { written: Written[] };
  let kept = 0;
  for (const w of written) {
    const now = existsSync(w.path) ? readFileSync(w.path) : undefined;
    if (now === undefined || sha256(now) !== w.sha256) {
      kept += 1;
      out(printableLine(`${w.path} changed since init; left as it is${w.backup ? ` (its backup: ${w.backup})` : ''}`, MAX_LINE_CHARS));
      continue;
    }
    if (w.backup) renameSync(w.backup, w.path);
    else rmSync(w.path);
    out(printableLine(w.backup ? `restored ${w.path}` : `removed ${w.path} (init created it)`, MAX_LINE_CHARS));
  }
  renameSync(manifest, manifest.replace(/\.json$/, '.undone.json'));
  return kept > 0 ? EXIT_FAILURE : EXIT_OK;
}
