/**
 * `toolshelf ui`: opens the dashboard (docs/dashboard.md) in the browser with a one-time sign-in link.
 * - `--url URL`: a gateway serving Streamable HTTP; with `TOOLSHELF_TOKEN` set, the token mints the
 *   link (`POST /ui/api/login-code`), so the token itself never reaches the browser or a URL.
 * - otherwise: the shared instance of the config that stdio clients use (started when none runs). It
 *   serves the page on a loopback port of its own for as long as this command runs.
 * The link goes to `$BROWSER` (as for `auth login`) or, with `--no-open`, to stdout.
 */
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { openBrowser } from '../auth/browser.js';
import { readConfigText } from '../config/read.js';
import { DASHBOARD_REQUEST } from '../gateway/fronts/socketFront.js';
import { reachInstance } from '../share/relay.js';
import { argumentError, type ArgOptions, chooseConfig, CONFIG_HELP, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, logLevelHelp, parseLogLevel, STOP_SIGNALS } from './common.js';
import { TOKEN_ENV } from './serveFlags.js';
import { sharedInstance } from './shared.js';

export const UI_USAGE = `Usage: toolshelf ui [--config FILE] [--log-level LEVEL] [--trace FILE] [--no-open]
       toolshelf ui --url URL [--no-open]

Opens the dashboard: servers, tools, a search playground, each client's manifest, calls and reloads.
  ${CONFIG_HELP}
                     the shared instance serving this config's stdio clients shows it on a loopback
                     port while this command runs (give the --log-level and --trace its clients use)
  --url URL          a gateway serving --http instead; set ${TOKEN_ENV} when it requires a token
  --no-open          print the one-time sign-in link instead of opening the browser
  ${logLevelHelp('info')}
Exit codes: 0 shown (and, for the shared instance, ended with Ctrl-C), 1 no dashboard could be reached, 2 bad usage.`;

const UI_OPTIONS = {
  config: { type: 'string', short: 'c' },
  url: { type: 'string' },
  trace: { type: 'string' },
  'log-level': { type: 'string', default: 'info' },
  'no-open': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} satisfies ArgOptions;

/** Runs `ui`; returns the exit code. */
export async function runUi(argv: string[], out: (line: string) => void): Promise<number> {
  const err = (text: string): void => void process.stderr.write(`${text}\n`);
  let values: { config?: string; url?: string; trace?: string; 'log-level': string; 'no-open': boolean; help?: boolean };
  try {
    values = parseArgs({ args: argv, options: UI_OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return err(`toolshelf: ${argumentError(error, UI_OPTIONS)}\n${UI_USAGE}`), EXIT_USAGE;
  }
  if (values.help) return out(UI_USAGE), EXIT_OK;
  const show = (url: string): void => (values['no-open'] ? out(url) : openBrowser(url, err, process.env, 'to see the dashboard'));
  if (values.url !== undefined) return viaHttp(values.url, show, err);
  const level = parseLogLevel(values['log-level']);
  if (!level.ok) return err(`toolshelf: ${level.error}`), EXIT_USAGE;
  const configPath = resolve(chooseConfig(values.config, process.cwd(), (text) => process.stderr.write(text)));
  let text: string;
  try {
    text = readConfigText(configPath);
  } catch (error) {
    return err(`toolshelf: cannot read ${configPath}: ${(error as Error).message}`), EXIT_USAGE;
  }
  return viaSharedInstance({ path: configPath, text }, level.value, values.trace, show, err);
}

/** Asks the gateway at `url` for a sign-in link (minted with the token when one is set). */
async function viaHttp(url: string, show: (url: string) => void, err: (text: string) => void): Promise<number> {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return err(`toolshelf: --url "${url}" is not a URL (e.g. http://127.0.0.1:3333)`), EXIT_USAGE;
  }
  const token = process.env[TOKEN_ENV];
  let response: Response;
  try {
    response = await fetch(`${origin}/ui/api/login-code`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    return err(`toolshelf: no gateway answered at ${origin}: ${(error as Error).message}`), EXIT_FAILURE;
  }
  if (response.status === 401) {
    const fix = token ? `refused the ${TOKEN_ENV} set here: set it to the token the gateway was started with` : `requires its token: set ${TOKEN_ENV}`;
    return err(`toolshelf: the gateway at ${origin} ${fix}`), EXIT_FAILURE;
  }
  const body = (await response.json().catch(() => undefined)) as { path?: unknown } | undefined;
  if (!response.ok || typeof body?.path !== 'string' || !body.path.startsWith('/')) {
    return err(`toolshelf: ${origin} serves no toolshelf dashboard (HTTP ${response.status})`), EXIT_FAILURE;
  }
  show(`${origin}${body.path}`);
  return EXIT_OK;
}

/**
 * Finds or starts the shared instance, asks it for its dashboard's sign-in link, and holds the
 * connection (which keeps the instance and its page alive) until a signal or the instance ends.
 */
async function viaSharedInstance(configFile: { path: string; text: string }, logLevel: string, trace: string | undefined, show: (url: string) => void, err: (text: string) => void): Promise<number> {
  const start = sharedInstance(configFile, logLevel, trace);
  let socket;
  try {
    socket = await reachInstance(start);
  } catch (error) {
    return err(`toolshelf: the shared instance cannot be started: ${(error as Error).message}`), EXIT_FAILURE;
  }
  if (!socket) return err(`toolshelf: the shared instance did not start (log ${start.paths.log})`), EXIT_FAILURE;
  socket.on('error', () => undefined);
  socket.write(`${DASHBOARD_REQUEST}\n`);
  const lines = createInterface({ input: socket });
  const first = await new Promise<string | undefined>((resolveLine) => {
    lines.once('line', resolveLine);
    socket.once('close', () => resolveLine(undefined));
  });
  const answer = parseAnswer(first);
  if (!answer.url) {
    socket.destroy();
    return err(`toolshelf: the shared instance has no dashboard: ${answer.error ?? 'it closed the connection (an older version? its log: ' + start.paths.log + ')'}`), EXIT_FAILURE;
  }
  show(answer.url);
  err('toolshelf: the dashboard stays up while this command runs; Ctrl-C ends it');
  return new Promise<number>((done) => {
    const stop = (): void => {
      socket.destroy();
      done(EXIT_OK);
    };
    for (const signal of STOP_SIGNALS) process.once(signal, stop);
    socket.once('close', () => {
      err('toolshelf: the shared instance ended, and its dashboard with it');
      done(EXIT_FAILURE);
    });
  });
}

/** The instance's one-line answer: `{"url": …}` or `{"error": …}`. */
function parseAnswer(line: string | undefined): { url?: string; error?: string } {
  try {
    const value = JSON.parse(line ?? '') as { url?: unknown; error?: unknown };
    return { ...(typeof value.url === 'string' ? { url: value.url } : {}), ...(typeof value.error === 'string' ? { error: value.error } : {}) };
  } catch {
    return {};
  }
}
