#!/usr/bin/env node
/**
 * The `toolshelf` command: picks a subcommand and sets the exit code. No rules live here.
 * Subcommands: serve (default), inspect, search, eval, auth, ui, init, review, approve, help; each lives in `commands/` and is imported only
 * when chosen, so `serve` starts its upstreams without first loading the others' code. This is the only
 * module that writes to stdout: commands print through the `out` given here (in stdio serving mode
 * stdout is the MCP channel, which the SDK transport writes itself).
 */

import { CLIENT_GONE_GRACE_MS } from './lib/timers.js';

type Command = (argv: string[]) => Promise<number>;

/** Writes one line of a command's output to stdout. */
const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** Set by `serve`: the exit waits for stdout at most this long, {@link CLIENT_GONE_GRACE_MS} (other commands' output is theirs to read in full). */
let flushGraceMs: number | undefined;
/**
 * When the client closed stdin (ms since epoch), under `serve`: the grace counts from then, so a
 * relay that already gave the client its grace before ending does not wait a second one at exit.
 */
let clientGoneAt: number | undefined;

/** Flags with which `serve` never relays: it serves HTTP, or it is the shared instance. */
const NEVER_RELAYS = /^--(http|shared-instance)(=|$)/;

const serve: Command = async (argv) => {
  flushGraceMs = CLIENT_GONE_GRACE_MS;
  // A stdio client of the shared instance loads only what relaying needs (relay.ts, docs/performance.md "Memory").
  if (!argv.some((arg) => NEVER_RELAYS.test(arg))) {
    process.stdin.once('end', () => (clientGoneAt ??= Date.now()));
    const relay = await (await import('./relay.js')).relayFromCli(argv, (text) => void process.stderr.write(text));
    if (relay.relayed) return relay.code;
    if (relay.configPath !== undefined) return (await import('./commands/serve.js')).runServe(argv, out, { configPath: relay.configPath });
  }
  return (await import('./commands/serve.js')).runServe(argv, out);
};

/** Subcommands by name; anything else is `serve`'s flags. */
const COMMANDS: Readonly<Record<string, Command>> = {
  serve,
  eval: async (argv) => (await import('./commands/eval.js')).runEval(argv, out),
  search: async (argv) => (await import('./commands/search.js')).runSearch(argv, out),
  inspect: async (argv) => (await import('./commands/inspect.js')).runInspect(argv, out),
  auth: async (argv) => (await import('./commands/auth.js')).runAuth(argv, out),
  ui: async (argv) => (await import('./commands/ui.js')).runUi(argv, out),
  init: async (argv) => (await import('./commands/init.js')).runInit(argv, out),
  review: async (argv) => (await import('./commands/trust.js')).runReview(argv, out),
  approve: async (argv) => (await import('./commands/trust.js')).runApprove(argv, out),
  // `toolshelf help` is `--help`, not a stray argument to serve.
  help: async () => (await import('./commands/serve.js')).runServe(['--help'], out),
};

/**
 * Exits once everything written to stdout is handed to the OS (pipes may be asynchronous), or when
 * set, {@link flushGraceMs} after the client closed stdin (or from now when it has not).
 */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.exit(code));
  if (flushGraceMs !== undefined) setTimeout(() => process.exit(code), Math.max(0, flushGraceMs - (clientGoneAt === undefined ? 0 : Date.now() - clientGoneAt))).unref();
}

/** Exit code for bad usage (commands/common.ts `EXIT_USAGE`, not imported: it would load that module first). */
const EXIT_USAGE = 2;

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  const command = first === undefined ? undefined : COMMANDS[first];
  if (command) return command(rest);
  // A word close to a command's name is a mistyped command, not a stray argument to serve.
  if (first !== undefined && !first.startsWith('-')) {
    const { suggestNames } = await import('./discovery/suggest.js');
    const [closest] = suggestNames(first, Object.keys(COMMANDS), 1);
    if (closest) {
      process.stderr.write(`toolshelf: unknown command "${first}"; did you mean "${closest}"? (toolshelf --help lists the commands)\n`);
      return EXIT_USAGE;
    }
  }
  return serve(argv);
}

main(process.argv.slice(2)).then(
  (code) => exitAfterFlush(code),
  (error: Error) => {
    process.stderr.write(`toolshelf: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
