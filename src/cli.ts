#!/usr/bin/env node
/**
 * The `toolshelf` command: picks a subcommand and sets the exit code. No rules live here.
 * Subcommands: serve (default), eval. Each lives in `commands/`.
 */
import { runEval } from './commands/eval.js';
import { runSearch } from './commands/search.js';
import { runInspect } from './commands/inspect.js';
import { runServe } from './commands/serve.js';

type Command = (argv: string[]) => Promise<number>;

const stdoutLine = (line: string): void => void process.stdout.write(`${line}\n`);

/** Subcommands by name; anything else is `serve`'s flags. */
const COMMANDS: Readonly<Record<string, Command>> = {
  serve: runServe,
  eval: (argv) => runEval(argv, stdoutLine),
  search: runSearch,
  inspect: runInspect,
};

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  const command = first === undefined ? undefined : COMMANDS[first];
  return command ? command(rest) : runServe(argv);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`toolshelf: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
