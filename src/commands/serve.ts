/**
 * `toolshelf [serve]`: the gateway over stdio (default) or Streamable HTTP. Parses flags, loads the
 * config, starts, prints the summary on stderr, and waits for the client to go or a signal.
 * In stdio mode nothing but protocol reaches stdout (docs/cli.md).
 */
import { readConfigText } from '../config/read.js';
import { join, resolve } from 'node:path';
import { networkInterfaces } from 'node:os';
import { parseArgs } from 'node:util';
import { stateDir } from '../lib/stateDir.js';
import type { Config } from '../config/types.js';
import type { Running } from '../toolshelf.js';
import type { StatusWriter } from '../share/status.js';
import { nullTrace, openJsonlTrace } from '../trace/jsonl.js';
import { reachLines } from '../gateway/fronts/hostCheck.js';
import { unknownViewText } from '../gateway/fronts/views.js';
import { withDebugSummary } from '../trace/summarize.js';
import { createLogger, type Logger } from '../trace/log.js';
import { argumentError, chooseConfig, CONFIG_HELP, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, loadOrReport, logLevelHelp, parseLogLevel, STOP_SIGNALS, VERSION } from './common.js';
import { SERVE_ARGS, SERVE_OPTIONS, type ServeArgs, stdioTokenWarning, TOKEN_ENV } from './serveFlags.js';
import { counted } from '../lib/plural.js';

export const SERVE_USAGE = `Usage: toolshelf [serve] [--config FILE] [--http [HOST:]PORT] [--token TOKEN] [--view NAME] [--trace FILE] [--log-level LEVEL] [--no-share | --share]
       toolshelf inspect [--config FILE] [--json] [--log-level LEVEL]            what each upstream costs on the wire
       toolshelf search "QUERY" [--limit N] [--config FILE] [--json] [--log-level LEVEL]   what tool_search would answer
       toolshelf eval --tools FILE --queries FILE [--k 1,5,10] [--subset NAME] [--json]    ranking quality
       toolshelf auth login SERVER | status [--json] | logout SERVER [--config FILE]       OAuth sign-in to remote servers
       toolshelf ui [--config FILE | --url URL] [--no-open]                                 the dashboard in the browser
       toolshelf init [--apply | --undo] [--client ID,…] [--config FILE]                  gather your clients' servers into one config
       toolshelf review [--config FILE]                                          upstream tools held for review, with what changed
       toolshelf approve SERVER [TOOL...] [--config FILE]                        serve held tools again (pins them as reviewed)
       toolshelf help | --help | --version

Serves every MCP server in the config as one: a few direct tools plus tool_search.
  ${CONFIG_HELP.replace('FILE  ', 'FILE      ')}
  --http [HOST:]PORT Streamable HTTP at /mcp instead of stdio (HOST defaults to 127.0.0.1; port 0 picks one)
  --token TOKEN      require "Authorization: Bearer TOKEN" over HTTP. Prefer TOOLSHELF_TOKEN=TOKEN in
                     the environment: a flag's value shows in ps to every user of this machine
  --view NAME        over stdio, serve the config's view NAME: only its tools (over HTTP a client
                     picks a view with the path /mcp/NAME)
  --trace FILE       append trace events as JSON lines
  --no-share         over stdio, run a gateway of this client's own instead of sharing one
                     background instance (and its upstreams) with every client of this config
                     (also TOOLSHELF_SHARE=0 or "share": {"enabled": false}; --share forces sharing)
  ${logLevelHelp('info')}
  --version          print the version
  --help, help       print this usage
Exit codes: 0 ok, 1 start-up failed, 2 bad usage or config; inspect also exits 3 when it printed its
report but an upstream failed to start (docs/operations.md).`;

/** Parses `--http` as `PORT`, `HOST:PORT` or `[V6]:PORT`; undefined when malformed. */
export function parseListen(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]:|([^:]+):)?(\d{1,5})$/.exec(text.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  return { host: match[1] ?? match[2] ?? '127.0.0.1', port };
}

/**
 * Runs the gateway until the client goes or a signal arrives; returns the exit code. `out` (stdout,
 * from cli.ts) carries only `--help` and `--version`, which are answered before anything is served.
 * A stdio client that shares an instance never gets here: cli.ts runs the relay's entry (relay.ts)
 * first, which hands over what it does not relay. `relayFailed` is the config the relay's entry chose
 * and named on stderr, with the token warning, before it found no instance to relay to: this process
 * serves the client instead, as with `--no-share`.
 */
export async function runServe(argv: string[], out: (line: string) => void, relayFailed?: { readonly configPath: string }): Promise<number> {
  const err = (text: string): void => void process.stderr.write(text);
  let values: ServeArgs;
  try {
    values = parseArgs({ args: argv, ...SERVE_ARGS }).values;
  } catch (error) {
    err(`toolshelf: ${argumentError(error, SERVE_OPTIONS)}\n${SERVE_USAGE}\n`);
    return EXIT_USAGE;
  }
  if (values.help) return out(SERVE_USAGE), EXIT_OK;
  if (values.version) return out(VERSION), EXIT_OK;
  const level = parseLogLevel(values['log-level']);
  if (!level.ok) return err(`toolshelf: ${level.error}\n`), EXIT_USAGE;
  const listen = values.http === undefined ? undefined : parseListen(values.http);
  if (values.http !== undefined && !listen) return err(`toolshelf: --http takes [HOST:]PORT, got "${values.http}"\n`), EXIT_USAGE;
  const configPath = relayFailed?.configPath ?? chooseConfig(values.config, process.cwd(), err);
  const config = loadOrReport(configPath, err);
  if (!config) return EXIT_USAGE;
  const configFile = { path: resolve(configPath), text: readConfigText(configPath) };
  const view = values.view;
  if (view !== undefined && listen) return err(`toolshelf: --view applies over stdio; over HTTP a client picks a view with the path /mcp/${view}\n`), EXIT_USAGE;
  if (view !== undefined && !Object.hasOwn(config.views, view)) return err(`toolshelf: --view: ${unknownViewText(view, Object.keys(config.views))}\n`), EXIT_USAGE;
  const logger = createLogger(level.value);
  const instance = values['shared-instance'];
  const token = values.token ?? process.env[TOKEN_ENV];
  // A token guards the HTTP front only: over stdio the client that started toolshelf is its only client.
  if (!listen && instance === undefined && token && !relayFailed) logger.warn(stdioTokenWarning(values.token !== undefined));
  if (instance !== undefined) {
    const [{ claimSharedInstance }, { relayWarnings, statusWriter }] = await Promise.all([import('./shared.js'), import('../share/status.js')]);
    const paths = claimSharedInstance(instance, logger);
    if (!paths) return EXIT_OK;
    const status = statusWriter(paths.status);
    // What a gateway of its own prints on its client's stderr, every relayed client is told too.
    return serve(config, configFile, undefined, undefined, values.trace, logger, { path: instance, idleExitMs: config.share.idleExitMs, status, shelfLogger: relayWarnings(logger, status) });
  }
  return serve(config, configFile, listen, token, values.trace, logger, undefined, view);
}

/** How often an HTTP gateway started by npm checks that its launcher is still there, in ms. */
const LAUNCHER_POLL_MS = 1000;

/**
 * This process's parent as the CLI loaded: read at start, not once serving, because on a loaded
 * machine the launcher can be killed between the "serving" line and the first check, and the
 * parent read then is already the one the orphan was handed to (test/e2e/launcher.e2e.test.ts).
 */
const LAUNCHER_PID = process.ppid;

/**
 * Runs `stop` once this process's parent changes. For an HTTP gateway started by npm (`npx toolshelf
 * --http`, `npm start`; npm sets `npm_command`): npm does not pass a SIGTERM on to the command it runs,
 * so without this the gateway and its upstreams outlived the npx process they were stopped through.
 * Over stdio the end of stdin does the same; a gateway started by anything else
 * (a shell, `nohup`, a service manager) is left alone.
 */
function stopWhenOrphaned(stop: () => void, logger: Logger): void {
  const check = (): boolean => {
    if (process.ppid === LAUNCHER_PID) return false;
    logger.info('the npm process that started toolshelf has ended; stopping');
    stop();
    return true;
  };
  if (check()) return;
  const timer = setInterval(() => {
    if (check()) clearInterval(timer);
  }, LAUNCHER_POLL_MS);
  timer.unref();
}

/**
 * Prunes the state folder of files unused for 30 days, at most once a day (lib/prune.ts,
 * docs/operations.md), keeping every running shared instance's files. Loaded here, not at the top,
 * for the same reason as serve's own modules. Never rejects; what it removed is logged at debug.
 */
async function pruneState(logger: Logger): Promise<void> {
  try {
    const [{ pruneStateFolder }, { instanceOwner }, { instancesDir, instancePathsOf }] = await Promise.all([import('../lib/prune.js'), import('../share/claim.js'), import('../share/paths.js')]);
    const state = stateDir(process.env);
    const result = pruneStateFolder({
      stateDir: state,
      // The folder this environment's instances use, and the state folder's own one.
      sharedDirs: [instancesDir(process.env), join(state, 'shared')],
      instanceRunning: (base) => instanceOwner(instancePathsOf(`${base}.sock`)) !== undefined,
    });
    if (!result.skipped && result.removed.length > 0) logger.debug(`state folder: pruned ${counted(result.removed.length, 'file')} unused for 30 days: ${result.removed.join(', ')}`);
  } catch (error) {
    logger.debug(`state folder: pruning failed: ${(error as Error).message}`);
  }
}

async function serve(
  config: Config,
  configFile: { path: string; text: string },
  listen: { host: string; port: number } | undefined,
  token: string | undefined,
  tracePath: string | undefined,
  logger: Logger,
  socket?: { path: string; idleExitMs: number; status: StatusWriter; shelfLogger: Logger },
  view?: string,
): Promise<number> {
  // Loaded here, not at the top: a client that only relays to the shared instance never loads the SDK.
  const [{ failureLines, formatSummary, upstreamsLine }, { StartupError }, { startToolshelf }] = await Promise.all([import('../shelf/summary.js'), import('../shelf/live.js'), import('../toolshelf.js')]);
  // A shared instance's state also goes to its clients' stderr; a gateway of one client's own has it on its stderr already.
  const tell = (line: string, topic: string): void => {
    logger.info(line);
    socket?.status.add(line, topic);
  };
  const trace = withDebugSummary(tracePath ? openJsonlTrace(tracePath) : nullTrace, logger);
  // Handlers go in before anything starts, so a signal during start-up still ends the upstreams.
  let running: Running | undefined;
  const starting = new AbortController();
  const stop = (): void => {
    if (running) void running.shutdown();
    else starting.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  try {
    running = await startToolshelf({
      ...(socket ? { announce: (topic: string, lines: readonly string[]) => socket.status.set(topic, lines) } : {}),
      config,
      configFile,
      stateDir: stateDir(process.env),
      ...(listen ? { http: listen } : {}),
      ...(socket ? { socket, shelfLogger: socket.shelfLogger } : {}),
      ...(token ? { token } : {}),
      ...(view !== undefined ? { view } : {}),
      trace,
      logger,
      version: VERSION,
      signal: starting.signal,
    });
  } catch (error) {
    await trace.close();
    if (starting.signal.aborted) return EXIT_OK;
    logger.error(error instanceof StartupError ? error.message : ((error as Error).stack ?? String(error)));
    return EXIT_FAILURE;
  }
  if (starting.signal.aborted) void running.shutdown();
  void pruneState(logger);
  // The upstreams line is replaced by "upstreams now", the failures by the failures then.
  formatSummary(running.summary).forEach((line, index) => tell(line, index === 0 ? 'upstreams' : `summary ${index}`));
  socket?.status.set('failures', failureLines(running.summary.upstreams));
  // Served before every upstream was up (start-up wait, cached catalogue): say when they are.
  if (running.summary.upstreams.some((u) => u.status === 'starting')) {
    void running.started.then((now) => {
      if (!now) return;
      tell(upstreamsLine(now.upstreams, 'upstreams now'), 'upstreams');
      socket?.status.set('failures', failureLines(now.upstreams));
    });
  }
  if (running.url && listen) {
    logger.info(`serving Streamable HTTP at ${running.url}${token ? ' (bearer token required)' : ''}`);
    const reach = reachLines(listen.host, Number(new URL(running.url).port), Boolean(token), networkInterfaces());
    for (const line of reach.info) logger.info(line);
    for (const line of reach.warn) logger.warn(line);
  }
  if (listen && process.env.npm_command !== undefined) stopWhenOrphaned(stop, logger);
  if (socket) logger.info(`shared instance serving stdio clients at ${socket.path}`);
  await running.closed;
  return EXIT_OK;
}
