/**
 * `toolshelf [serve]`'s flags and the switch that decides whether a stdio client shares an instance:
 * read by `serve` (serve.ts) and first by the stdio relay's entry (relay.ts), which must not load
 * serve.ts's dependencies (docs/performance.md, "Memory").
 */
import type { parseArgs, ParseArgsConfig } from 'node:util';
import type { ArgOptions } from './common.js';

/** Environment variable holding the HTTP bearer token; preferred to `--token`, whose value `ps` shows. */
export const TOKEN_ENV = 'TOOLSHELF_TOKEN';

/** Environment variable that turns sharing off (`0`) or on (`1`) over the config's `share.enabled`. */
export const SHARE_ENV = 'TOOLSHELF_SHARE';

export const SERVE_OPTIONS = {
  config: { type: 'string', short: 'c' },
  http: { type: 'string' },
  token: { type: 'string' },
  trace: { type: 'string' },
  view: { type: 'string' },
  share: { type: 'boolean' },
  'no-share': { type: 'boolean' },
  'shared-instance': { type: 'string' },
  'log-level': { type: 'string', default: 'info' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} satisfies ArgOptions;

/** How `serve` reads its flags: `parseArgs({ args, ...SERVE_ARGS })` (node:util), which throws for an unknown flag, a missing value or a stray argument. */
export const SERVE_ARGS = { options: SERVE_OPTIONS, strict: true, allowPositionals: false } satisfies ParseArgsConfig;

/** `serve`'s flags as read. */
export type ServeArgs = ReturnType<typeof parseArgs<typeof SERVE_ARGS>>['values'];

/**
 * `serve`'s flags from `argv` when every argument has one of the plain forms a client's config
 * writes (`--share`, `--NAME VALUE` with a VALUE not starting with `-`, `--NAME=VALUE`, `-c VALUE`),
 * the same as parseArgs with {@link SERVE_ARGS} reads them; undefined for anything else, which only
 * parseArgs reads (then right, or with its error). Spares the stdio relay node:util's parser: about
 * 0.3 MiB of its RSS (docs/performance.md, "Memory"). Pure.
 */
export function plainServeArgs(argv: readonly string[]): ServeArgs | undefined {
  const values: Record<string, string | boolean> = { 'log-level': SERVE_OPTIONS['log-level'].default };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = arg === '-c' ? 'config' : arg.startsWith('--') ? arg.slice(2, equals < 0 ? undefined : equals) : '';
    if (!Object.hasOwn(SERVE_OPTIONS, name)) return undefined;
    if (SERVE_OPTIONS[name as keyof typeof SERVE_OPTIONS].type === 'boolean') {
      if (equals >= 0) return undefined;
      values[name] = true;
      continue;
    }
    const value = equals >= 0 ? arg.slice(equals + 1) : argv[(i += 1)];
    if (value === undefined || (equals < 0 && value.startsWith('-'))) return undefined;
    values[name] = value;
  }
  return values as ServeArgs;
}

/**
 * Whether a stdio client relays to the shared instance (docs/architecture.md): `--share` or
 * `--no-share`, else TOOLSHELF_SHARE (`0`/`1`), else the config's `share.enabled` (default true).
 */
export function shareChosen(flagOn: boolean | undefined, flagOff: boolean | undefined, env: string | undefined, configured: boolean): boolean {
  if (flagOff) return false;
  if (flagOn) return true;
  if (env === '0' || env === '1') return env === '1';
  return configured;
}

/**
 * The warning for a bearer token given over stdio (by `--token` when `fromFlag`, else by
 * {@link TOKEN_ENV}): a token guards the HTTP front only, and the client that started toolshelf over
 * stdio is its only client.
 */
export function stdioTokenWarning(fromFlag: boolean): string {
  return `${fromFlag ? '--token' : `${TOKEN_ENV} is set but`} only applies to --http; over stdio it is ignored`;
}
