#!/usr/bin/env node
/**
 * The `toolshelf` command: argv → serve | inspect | search | eval; prints and sets the exit code.
 * No rules live here. In stdio mode nothing but protocol is written to stdout (DESIGN §11).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runEval } from './commands/eval.js';
import { loadConfig } from './config/load.js';
import type { Config } from './config/types.js';
import { startToolshelf, StartupError, type Running } from './toolshelf.js';
import { formatSummary } from './summary.js';
import { nullTrace, openJsonlTrace } from './trace/jsonl.js';
import { createLogger, type LogLevel, type Logger } from './trace/log.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const USAGE = `Usage: toolshelf [serve] [--config FILE] [--http [HOST:]PORT] [--token TOKEN] [--trace FILE] [--log-level LEVEL]
       toolshelf eval --tools FILE --queries FILE [--k 1,5,10] [--json]

Serves every MCP server in the config as one: a few direct tools plus tool_search.
  --config FILE      servers.config.json (default: ./servers.config.json)
  --http [HOST:]PORT Streamable HTTP at /mcp instead of stdio (HOST defaults to 127.0.0.1)
  --token TOKEN      require "Authorization: Bearer TOKEN" over HTTP (or TOOLSHELF_TOKEN)
  --trace FILE       append trace events as JSON lines
  --log-level LEVEL  debug | info | warn | error (default info; upstream stderr shows at debug)
  --version, --help`;

/** Exit codes: 0 ok, 1 runtime failure, 2 bad usage or bad config. */
const EXIT_USAGE = 2;

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'eval') return runEval(rest, (line) => process.stdout.write(`${line}\n`));
  return serve(first === 'serve' ? rest : argv);
}

function parseServeArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      config: { type: 'string', short: 'c', default: 'servers.config.json' },
      http: { type: 'string' },
      token: { type: 'string' },
      trace: { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

/** Parses `--http` as `PORT`, `HOST:PORT` or `[V6]:PORT`. */
export function parseListen(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]:|([^:]+):)?(\d{1,5})$/.exec(text.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  return { host: match[1] ?? match[2] ?? '127.0.0.1', port };
}

async function serve(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parseServeArgs>;
  try {
    values = parseServeArgs(argv);
  } catch (error) {
    process.stderr.write(`toolshelf: ${(error as Error).message}\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (values.help) return void process.stderr.write(`${USAGE}\n`), 0;
  if (values.version) return void process.stderr.write(`${VERSION}\n`), 0;
  const level = values['log-level'] as LogLevel;
  if (!['debug', 'info', 'warn', 'error'].includes(level)) return usageError(`--log-level must be debug, info, warn or error`);
  const listen = values.http === undefined ? undefined : parseListen(values.http);
  if (values.http !== undefined && !listen) return usageError(`--http takes [HOST:]PORT, got "${values.http}"`);
  const logger = createLogger(level);
  const loaded = loadConfig(values.config, process.env);
  if (!loaded.ok) {
    const lines = loaded.error.map((p) => `  ${p.path}: ${p.message}`);
    process.stderr.write(`toolshelf: ${values.config} has ${loaded.error.length} problem(s):\n${lines.join('\n')}\n`);
    return EXIT_USAGE;
  }
  return run(loaded.value, listen, values.token ?? process.env.TOOLSHELF_TOKEN, values.trace, logger);
}

async function run(config: Config, listen: { host: string; port: number } | undefined, token: string | undefined, tracePath: string | undefined, logger: Logger): Promise<number> {
  const trace = tracePath ? openJsonlTrace(tracePath) : nullTrace;
  // Handlers go in before anything starts, so a signal during start-up still ends the upstreams.
  let running: Running | undefined;
  let stopRequested = false;
  const stop = (): void => {
    if (stopRequested) return;
    stopRequested = true;
    void running?.shutdown();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
  try {
    running = await startToolshelf({ config, ...(listen ? { http: listen } : {}), ...(token ? { token } : {}), trace, logger, version: VERSION });
  } catch (error) {
    logger.error(error instanceof StartupError ? error.message : ((error as Error).stack ?? String(error)));
    await trace.close();
    return 1;
  }
  for (const line of formatSummary(running.summary)) logger.info(line);
  if (running.url) logger.info(`serving Streamable HTTP at ${running.url}${token ? ' (bearer token required)' : ''}`);
  if (stopRequested) void running.shutdown();
  await running.closed;
  return 0;
}

function usageError(message: string): number {
  process.stderr.write(`toolshelf: ${message}\n${USAGE}\n`);
  return EXIT_USAGE;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`toolshelf: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
