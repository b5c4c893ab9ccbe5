/**
 * `toolshelf review [--config FILE]` and `toolshelf approve SERVER [TOOL…] [--config FILE]`: what is
 * held for review (each changed tool's diff against its pin, each flagged tool's or instructions'
 * findings), and pinning the held versions as reviewed. A running gateway of the same config watches
 * its pin files and applies an approval at once. Upstream text is printed one line per field with
 * controls escaped (lib/printable.ts). Source: docs/security.md, "Pins, quarantine and review".
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config/types.js';
import { suggestNames } from '../discovery/suggest.js';
import { printableLine } from '../lib/printable.js';
import { stateDir } from '../lib/stateDir.js';
import { approveStored, type ApproveOutcome } from '../trust/approval.js';
import { summary, type HeldVersion, type ServerPins } from '../trust/judge.js';
import { diffPins } from '../trust/pin.js';
import { PinStore } from '../trust/store.js';
import { argumentError, type ArgOptions, chooseConfig, CONFIG_HELP, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, loadOrReport } from './common.js';

const REVIEW_USAGE = `Usage: toolshelf review [--config FILE]
Shows each upstream tool held for review: what changed since it was pinned, or what the scanner found.
  ${CONFIG_HELP}
Approve with: toolshelf approve SERVER [TOOL...]
Exit codes: 0 nothing held, 1 something is held, 2 bad usage or config.`;

const APPROVE_USAGE = `Usage: toolshelf approve SERVER [TOOL...] [--config FILE]
Pins the held versions of SERVER's TOOLs (every held tool, and held instructions, when no TOOL is
given) as reviewed. A running toolshelf of the same config serves them at once.
  ${CONFIG_HELP}
Exit codes: 0 approved, 1 nothing of that was held, 2 bad usage or config.`;

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  help: { type: 'boolean', short: 'h' },
} satisfies ArgOptions;

/** Longest line printed for one field, in characters. */
const MAX_FIELD_CHARS = 4000;

/** The config and the pin store it keys, or the exit code after reporting why not. */
function open(given: string | undefined, err: (text: string) => void): { config: Config; store: PinStore } | number {
  const path = chooseConfig(given, process.cwd(), err);
  const config = loadOrReport(path, err);
  if (!config) return EXIT_USAGE;
  return { config, store: new PinStore(stateDir(process.env), resolve(path)) };
}

function parse(argv: string[], usage: string, positionals: boolean, err: (text: string) => void): { values: { config?: string; help?: boolean }; positionals: string[] } | number {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: positionals });
  } catch (error) {
    return err(`toolshelf: ${argumentError(error, OPTIONS)}\n${usage}\n`), EXIT_USAGE;
  }
}

/** Runs `review`; prints through `out`. Returns 0 when nothing is held, 1 when something is, 2 on bad usage. */
export async function runReview(argv: string[], out: (text: string) => void): Promise<number> {
  const err = (text: string): void => void process.stderr.write(text);
  const args = parse(argv, REVIEW_USAGE, false, err);
  if (typeof args === 'number') return args;
  if (args.values.help) return out(REVIEW_USAGE), EXIT_OK;
  const opened = open(args.values.config, err);
  if (typeof opened === 'number') return opened;
  const lines: string[] = [];
  for (const server of Object.keys(opened.config.mcpServers)) {
    const pins = opened.store.load(server);
    if (pins) lines.push(...reviewLines(server, pins));
  }
  if (lines.length === 0) return out('Nothing is held for review.'), EXIT_OK;
  out(lines.join('\n'));
  return EXIT_FAILURE;
}

/**
 * What `review` prints for one server: each held tool with its reason, its diff against the pin (or
 * its text when it has none), its findings and the command that approves it; held instructions likewise.
 * Every upstream string is one printable line. Pure.
 */
export function reviewLines(server: string, pins: ServerPins): string[] {
  const lines: string[] = [];
  const show = (text: string): string => printableLine(text, MAX_FIELD_CHARS);
  for (const [tool, version] of Object.entries(pins.held)) {
    lines.push(`${show(server)}: tool ${show(tool)} — ${reasonText(version)}`);
    const pinned = pins.tools[tool];
    for (const change of diffPins(pinned?.text ?? {}, version.text)) {
      lines.push(`  ${change.field}:`);
      if (change.before !== undefined) lines.push(`    - ${show(change.before)}`);
      if (change.after !== undefined) lines.push(`    + ${show(change.after)}`);
    }
    for (const finding of version.findings) lines.push(`  found ${finding.kind} at ${finding.where}: ${show(finding.excerpt)}`);
    lines.push(`  approve: toolshelf approve ${quoteArg(server)} ${quoteArg(tool)}`, '');
  }
  if (pins.heldInstructions) {
    lines.push(`${show(server)}: instructions — flagged by the scanner (${summary(pins.heldInstructions.findings)}); left out of toolshelf's instructions`);
    lines.push(`  text: ${show(pins.heldInstructions.text)}`);
    for (const finding of pins.heldInstructions.findings) lines.push(`  found ${finding.kind} at ${finding.where}: ${show(finding.excerpt)}`);
    lines.push(`  approve: toolshelf approve ${quoteArg(server)}`, '');
  }
  return lines;
}

function reasonText(version: HeldVersion): string {
  if (version.reason === 'changed') return 'changed since it was pinned';
  if (version.reason === 'new') return 'new, not pinned yet';
  return `flagged by the scanner (${summary(version.findings)})`;
}

/** `text` as one shell word: as it is when plain, else single-quoted (printable either way). */
function quoteArg(text: string): string {
  const shown = printableLine(text, MAX_FIELD_CHARS);
  return /^[\w.@%+=:,/-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
}

/** Says which of `names` are not held, with the closest held tool. */
function notHeldLines(server: string, names: readonly string[], held: readonly string[], err: (text: string) => void): void {
  for (const name of names) {
    const [near] = suggestNames(name, held, 1);
    err(`toolshelf: "${printableLine(name, 200)}" of "${server}" is not held for review${near ? `; did you mean "${near}"?` : ''}\n`);
  }
}

/** Runs `approve`; prints through `out`. Returns 0 when something was approved, 1 when nothing named was held, 2 on bad usage. */
export async function runApprove(argv: string[], out: (text: string) => void): Promise<number> {
  const err = (text: string): void => void process.stderr.write(text);
  const args = parse(argv, APPROVE_USAGE, true, err);
  if (typeof args === 'number') return args;
  if (args.values.help) return out(APPROVE_USAGE), EXIT_OK;
  const [server, ...tools] = args.positionals;
  if (server === undefined) return err(`toolshelf: approve needs a SERVER\n${APPROVE_USAGE}\n`), EXIT_USAGE;
  const opened = open(args.values.config, err);
  if (typeof opened === 'number') return opened;
  const keys = Object.keys(opened.config.mcpServers);
  if (!keys.includes(server)) {
    const [near] = suggestNames(server, keys, 1);
    return err(`toolshelf: no server "${printableLine(server, 200)}" in the config${near ? `; did you mean "${near}"?` : ''}\n`), EXIT_USAGE;
  }
  let outcome: ApproveOutcome;
  try {
    outcome = approveStored(opened.store, server, tools);
  } catch (error) {
    return err(`toolshelf: cannot write the pins of "${server}": ${(error as Error).message}\n`), EXIT_FAILURE;
  }
  if (outcome.kind === 'nothing_held') return err(`toolshelf: nothing of "${server}" is held for review\n`), EXIT_FAILURE;
  if (outcome.kind === 'not_held') return notHeldLines(server, outcome.notHeld, outcome.held, err), EXIT_FAILURE;
  if (outcome.kind === 'busy') return err(`toolshelf: the pins of "${server}" kept changing while approving; try again\n`), EXIT_FAILURE;
  const result = outcome.approval;
  notHeldLines(server, result.notHeld, Object.keys(outcome.before.held), err);
  for (const name of result.approved) out(`approved: ${server} ${printableLine(name, 200)}`);
  if (result.instructions) out(`approved: ${server} instructions`);
  return result.notHeld.length > 0 ? EXIT_FAILURE : EXIT_OK;
}

