/**
 * The stdio relay's entry (`dist/relay.js`), which `toolshelf [serve]` runs before anything else.
 * When the client is to share its config's instance (the default over stdio), it relays to it having
 * loaded only what relaying needs: the config file's text and its `share` and `views` keys, the
 * instance's paths, and the relay itself (share/relay.ts). The config is validated only when no
 * instance runs, before one is started from this process: a running instance validated the config
 * when it started and checks every edit since, telling each client what it refused (toolshelf.ts
 * `watchForReload`). Everything else (other flags, a config that cannot be read or parsed, sharing off,
 * an unknown view, a config that fails validation) is left to `commands/serve.ts`, which serves or
 * reports it. See docs/performance.md, "Memory".
 */
import { dirname, resolve } from 'node:path';
import { configChoice } from './commands/configChoice.js';
import { plainServeArgs, SERVE_ARGS, type ServeArgs, SHARE_ENV, shareChosen, stdioTokenWarning, TOKEN_ENV } from './commands/serveFlags.js';
import { relayShared, sharedInstance } from './commands/shared.js';
import { readConfigText } from './config/read.js';
import { instanceOwner } from './share/claim.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './trace/log.js';

/** What a stdio client's `toolshelf [serve]` is to do, when it is to relay. */
export interface RelayPlan {
  /** The config file as chosen (relative as given) and its absolute path and text, which key the instance (share/paths.ts). */
  readonly configPath: string;
  readonly configFile: { readonly path: string; readonly text: string };
  /** The line naming the config when no `--config` chose it. */
  readonly note?: string;
  readonly logLevel: LogLevel;
  readonly trace?: string;
  readonly view?: string;
  /** The warning for a bearer token, which applies over HTTP only. */
  readonly tokenWarning?: string;
}

/** Serve's flags from `argv`, or undefined on a usage error (serve reports it). */
async function serveArgs(argv: string[]): Promise<ServeArgs | undefined> {
  const plain = plainServeArgs(argv);
  if (plain) return plain;
  const { parseArgs } = await import('node:util');
  try {
    return parseArgs({ args: argv, ...SERVE_ARGS }).values;
  } catch {
    return undefined;
  }
}

/**
 * The relay plan for serve's flags `values` (undefined: a usage error), or undefined when this process
 * does not relay: a flag that is not a stdio client's (`--http`, `--shared-instance`, `--help`,
 * `--version`), a bad `--log-level`, sharing turned off (serveFlags.ts `shareChosen`), a config that
 * cannot be read or is no JSON object, a `share.enabled` that is no boolean, or a `--view` the config
 * does not name. Reads the config file and nothing else; never throws.
 */
export function relayPlan(values: ServeArgs | undefined, env: Readonly<Record<string, string | undefined>>, cwd: string): RelayPlan | undefined {
  if (!values) return undefined;
  if (values.help || values.version || values.http !== undefined || values['shared-instance'] !== undefined) return undefined;
  const logLevel = LOG_LEVELS.find((level) => level === values['log-level']);
  if (logLevel === undefined || !shareChosen(values.share, values['no-share'], env[SHARE_ENV], true)) return undefined;
  const choice = configChoice(values.config, cwd);
  let raw: unknown;
  let text: string;
  try {
    text = readConfigText(resolve(cwd, choice.path));
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
  if (!isObject(raw)) return undefined;
  const { share, views } = raw as { share?: unknown; views?: unknown };
  // As config/defaults.ts applies it; a value the schema refuses is left to serve to report.
  const enabled = share === undefined ? true : isObject(share) ? (Object.hasOwn(share, 'enabled') ? share.enabled : true) : undefined;
  if (typeof enabled !== 'boolean' || !shareChosen(values.share, values['no-share'], env[SHARE_ENV], enabled)) return undefined;
  const view = values.view;
  if (view !== undefined && !(isObject(views) && Object.hasOwn(views, view))) return undefined;
  const token = values.token ?? env[TOKEN_ENV];
  return {
    configPath: choice.path,
    configFile: { path: resolve(cwd, choice.path), text },
    ...(choice.note !== undefined ? { note: choice.note } : {}),
    logLevel,
    ...(values.trace !== undefined ? { trace: values.trace } : {}),
    ...(view !== undefined ? { view } : {}),
    ...(token ? { tokenWarning: stdioTokenWarning(values.token !== undefined) } : {}),
  };
}

/** Whether `value` is a JSON object (not null, not an array). */
function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** How the relay's entry ended: relayed until the exit `code`, or not, then with the config already chosen when it tried and failed. */
export type RelayOutcome = { readonly relayed: true; readonly code: number } | { readonly relayed: false; readonly configPath?: string };

/**
 * Relays this process's stdio to the shared instance when {@link relayPlan} says so, its messages on
 * `err`. Not relayed: without `configPath` nothing was said or done (serve decides and reports as
 * for any start); with it, no instance could be reached, which `err` was told, and this process is
 * to serve the client: it is served all the same, only not shared.
 */
export async function relayFromCli(argv: string[], err: (text: string) => void): Promise<RelayOutcome> {
  const plan = relayPlan(await serveArgs(argv), process.env, process.cwd());
  if (!plan) return { relayed: false };
  const start = sharedInstance(plan.configFile, plan.logLevel, plan.trace);
  // No instance to join: this process starts one, so the config must be valid first.
  if (instanceOwner(start.paths) === undefined) {
    const { parseConfig } = await import('./config/load.js');
    if (!parseConfig(plan.configFile.text, process.env, dirname(plan.configFile.path)).ok) return { relayed: false };
  }
  if (plan.note !== undefined) err(plan.note);
  if (plan.tokenWarning !== undefined) createLogger(plan.logLevel, err).warn(plan.tokenWarning);
  // Relaying runs a few small functions for every message, which V8's optimizing compiler would compile
  // once hot: 6 MiB more RSS after a few thousand messages, for no speed a relay needs (docs/performance.md, "Memory").
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--no-opt');
  const relay = await relayShared(start, err, plan.view);
  if (relay.relayed) return { relayed: true, code: relay.code };
  setFlagsFromString('--opt');
  err(`toolshelf: ${relay.why}\ntoolshelf: serving from this process instead, as with --no-share\n`);
  return { relayed: false, configPath: plan.configPath };
}
