#!/usr/bin/env node
/**
 * The `toolshelf` command: picks a subcommand and sets the exit code. No rules live here.
 * Subcommands: serve (default), inspect, search, eval; each lives in `commands/` and is imported only
 * when chosen, so `serve` starts its upstreams without first loading the others' code.
 */

type Command = (argv: string[]) => Promise<number>;

const stdoutLine = (line: string): void => void process.stdout.write(`${line}\n`);

const serve: Command = async (argv) => (await import('./commands/serve.js')).runServe(argv);

/** Subcommands by name; anything else is `serve`'s flags. */
const COMMANDS: Readonly<Record<string, Command>> = {
  serve,
  eval: async (argv) => (await import('./commands/eval.js')).runEval(argv, stdoutLine),
  search: async (argv) => (await import('./commands/search.js')).runSearch(argv),
  inspect: async (argv) => (await import('./commands/inspect.js')).runInspect(argv),
};

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  const command = first === undefined ? undefined : COMMANDS[first];
  return command ? command(rest) : serve(argv);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`toolshelf: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
