/**
 * Validates a parsed, interpolated config against `config.schema.json` (the file that ships in the
 * package) and the rules JSON Schema cannot say. Runs after `${VAR}` expansion, so every check sees
 * the value the gateway will use. Returns every problem with its JSON path; no file I/O beyond
 * loading the schema once. Source: docs/configuration.md.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import type { ConfigProblem } from './types.js';
import { escapePointer } from './interpolate.js';
import { LONGEST_TIMER_MS } from '../lib/timers.js';
import { suggestNames } from '../discovery/suggest.js';
import { isPlainObject } from '../lib/plainObject.js';
import { newAjv } from '../schema/ajvEngines.js';

/** Path of the published JSON Schema, at the package root beside `package.json`. */
export const CONFIG_SCHEMA_URL = new URL('../../config.schema.json', import.meta.url);

/** The schema's maximum for every setting in ms is {@link LONGEST_TIMER_MS}; a value over it is told why. */
const TIMER_LIMIT_MESSAGE = `must be <= ${LONGEST_TIMER_MS} (about 24.8 days, the longest timer Node.js can set; a longer one fires at once)`;

/** ajv settings for the config schema. `verbose`: an error carries its schema, so an unknown key can be matched against the known ones. */
export const CONFIG_AJV_OPTIONS: Options = { allErrors: true, strict: false, verbose: true };

/**
 * The config schema's validator compiled at build time (scripts/postbuild.mjs, ajv standalone code
 * with {@link CONFIG_AJV_OPTIONS}), beside this module in `dist/`, and the SHA-256 of the schema text
 * it was compiled from. Loading it instead of ajv keeps the stdio relay of a shared instance small
 * (docs/performance.md, "Memory").
 */
export const PRECOMPILED_VALIDATOR = './configValidator.cjs';

/** SHA-256 (hex) of the config schema's text: a precompiled validator serves only the text it was compiled from. */
export function schemaTextHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const require = createRequire(import.meta.url);
let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    const text = readFileSync(CONFIG_SCHEMA_URL, 'utf8');
    compiled = precompiled(schemaTextHash(text)) ?? compile(JSON.parse(text) as object);
  }
  return compiled;
}

/** The build's validator when there is one for this schema text (none when run from `src/`, or the schema changed since the build). */
function precompiled(hash: string): ValidateFunction | undefined {
  let built: ValidateFunction & { schemaHash?: string };
  try {
    built = require(PRECOMPILED_VALIDATOR) as typeof built;
  } catch (error) {
    if ((error as { code?: string }).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  return built.schemaHash === hash ? built : undefined;
}

function compile(schema: object): ValidateFunction {
  return newAjv('draft-07', CONFIG_AJV_OPTIONS).compile(schema);
}

/**
 * Checks `raw` (a parsed JSON value, after interpolation) and returns every problem, sorted by
 * path; empty when valid. Beyond the schema: each server has exactly one of `command` / `url`,
 * stdio-only and remote-only keys are not mixed, and `defaultLimit` fits under `maxLimit`.
 */
export function validateConfig(raw: unknown): ConfigProblem[] {
  const check = validator();
  const problems: ConfigProblem[] = [];
  if (!check(raw)) problems.push(...withoutBranchErrors(check.errors ?? []).flatMap(describeError));
  problems.push(...serverShapeProblems(raw), ...limitProblems(raw), ...authProblems(raw), ...viewProblems(raw));
  return dedupe(problems).sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * `errors` with one account of each anyOf that failed. A value that is no object gets the anyOf's
 * line alone, without what each branch reports at its path ("must be object" beside it: one mistake
 * gave two messages). An object took the object form: its own errors say what is wrong
 * (a misspelt key, at its path, with the key it was meant to be), and the anyOf's line and the
 * constants' "must be equal to constant" go: `{"maxDescriptonBytes": 500}` got only "must be
 * \"third-party\", false, or an object of byte budgets", never naming the key.
 */
function withoutBranchErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const objectForm = new Map(errors.filter((e) => e.keyword === 'anyOf').map((e) => [e.instancePath, isPlainObject(e.data)]));
  return errors.filter((e) => {
    const isObject = objectForm.get(e.instancePath);
    if (isObject === undefined || (e.keyword !== 'anyOf' && !e.schemaPath.includes('/anyOf/'))) return true;
    return e.keyword === 'anyOf' ? !isObject : isObject && e.keyword !== 'const';
  });
}

function describeError(error: ErrorObject): ConfigProblem[] {
  const path = error.instancePath || '/';
  if (error.propertyName !== undefined) {
    // An error about a key, from inside a `propertyNames` schema: report it at the key's own path.
    const at = `${error.instancePath}/${escapePointer(error.propertyName)}`;
    if (error.instancePath === '/views' && error.keyword === 'pattern') return [{ path: at, message: VIEW_NAME_MESSAGE }];
    return [{ path: at, message: error.keyword === 'not' ? 'is a reserved name' : `as a key, ${error.message ?? 'is invalid'}` }];
  }
  switch (error.keyword) {
    case 'propertyNames':
      // Its inner errors, which carry the offending key, were reported above.
      return [];
    case 'additionalProperties': {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys((error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
      // Only a key that applies: "headers" offered for a stdio server's "hedaers" is refused next.
      const foreign = known.includes('command') ? foreignKeys(error.data) : [];
      const [near] = suggestNames(extra, known.filter((key) => !foreign.includes(key)), 1);
      return [{ path: `${error.instancePath}/${escapePointer(extra)}`, message: near ? `is not a known key; did you mean "${near}"?` : 'is not a known key' }];
    }
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      return [{ path: `${error.instancePath}/${escapePointer(missing)}`, message: 'is required' }];
    }
    case 'enum': {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      // A misspelt word ("defered") gets the one it was meant to be, as a misspelt key does.
      const words = allowed.filter((v): v is string => typeof v === 'string');
      const [near] = typeof error.data === 'string' ? suggestNames(error.data, words, 1) : [];
      return [{ path, message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${near ? `; did you mean "${near}"?` : ''}` }];
    }
    case 'anyOf':
    case 'const':
      // anyOf branches report their own errors; keep one readable line for the whole.
      if (error.keyword !== 'anyOf') return [];
      return [{ path, message: `must be "third-party", false, or an object of byte budgets${typeof error.data === 'string' && suggestNames(error.data, ['third-party'], 1).length > 0 ? '; did you mean "third-party"?' : ''}` }];
    case 'if':
      return [];
    case 'maximum':
      return [{ path, message: (error.params as { limit: number }).limit === LONGEST_TIMER_MS ? TIMER_LIMIT_MESSAGE : (error.message ?? 'is invalid') }];
    default:
      return [{ path, message: error.message ?? 'is invalid' }];
  }
}

/** Keys only a stdio server takes, and keys only a remote one takes (docs/configuration.md). */
const STDIO_ONLY = ['args', 'env', 'cwd', 'inheritEnv'];
const REMOTE_ONLY = ['headers', 'transport', 'auth'];

/** The keys that do not apply to server entry `entry`: the remote-only ones with `command`, the stdio-only ones with `url`; none when it has both or neither. */
function foreignKeys(entry: unknown): readonly string[] {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return [];
  const hasCommand = Object.hasOwn(entry, 'command');
  if (hasCommand === Object.hasOwn(entry, 'url')) return [];
  return hasCommand ? REMOTE_ONLY : STDIO_ONLY;
}

function serverShapeProblems(raw: unknown): ConfigProblem[] {
  const servers = (raw as { mcpServers?: unknown } | null)?.mcpServers;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) return [];
  const problems: ConfigProblem[] = [];
  for (const [key, entry] of Object.entries(servers as Record<string, unknown>)) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) continue;
    const at = `/mcpServers/${escapePointer(key)}`;
    const hasCommand = Object.hasOwn(entry, 'command');
    const hasUrl = Object.hasOwn(entry, 'url');
    if (hasCommand === hasUrl) {
      problems.push({ path: at, message: hasCommand ? 'has both "command" and "url"; give one' : 'needs "command" (stdio) or "url" (remote)' });
      continue;
    }
    for (const field of foreignKeys(entry).filter((f) => Object.hasOwn(entry, f))) {
      problems.push({ path: `${at}/${field}`, message: `does not apply to a ${hasCommand ? 'stdio' : 'remote'} server` });
    }
  }
  return problems;
}

/**
 * `auth` combinations JSON Schema does not express: `client_credentials` needs a
 * `clientId` and one of `clientSecret` / `privateKey`; `privateKey` and `clientSecret` exclude each
 * other; `signingAlgorithm` goes with `privateKey`, which goes with `client_credentials`.
 */
function authProblems(raw: unknown): ConfigProblem[] {
  const servers = (raw as { mcpServers?: unknown } | null)?.mcpServers;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) return [];
  const problems: ConfigProblem[] = [];
  for (const [key, entry] of Object.entries(servers as Record<string, unknown>)) {
    const auth = (entry as { auth?: unknown } | null)?.auth;
    if (auth === null || typeof auth !== 'object' || Array.isArray(auth)) continue;
    const at = `/mcpServers/${escapePointer(key)}/auth`;
    const has = (field: string): boolean => Object.hasOwn(auth, field);
    const machine = (auth as { grantType?: unknown }).grantType === 'client_credentials';
    if (machine && !has('clientId')) problems.push({ path: `${at}/clientId`, message: 'is required with grantType "client_credentials"' });
    if (machine && !has('clientSecret') && !has('privateKey')) problems.push({ path: at, message: 'needs "clientSecret" or "privateKey" with grantType "client_credentials"' });
    if (has('clientSecret') && has('privateKey')) problems.push({ path: `${at}/privateKey`, message: 'excludes "clientSecret"; give one' });
    if (has('privateKey') && !machine) problems.push({ path: `${at}/privateKey`, message: 'applies only with grantType "client_credentials"' });
    if (has('signingAlgorithm') && !has('privateKey')) problems.push({ path: `${at}/signingAlgorithm`, message: 'applies only with "privateKey"' });
  }
  return problems;
}

/** Why a view name is refused: it goes in the path `/mcp/NAME` and on the command line. */
const VIEW_NAME_MESSAGE = 'is not a usable view name: letters, digits, ".", "_" and "-", starting with a letter or digit, at most 64 characters (it goes in the path /mcp/NAME)';

/**
 * Each view's `servers` must name keys of `mcpServers` (docs/views.md): a misspelt one would leave
 * that server's tools out of the view without a word. The closest key is offered.
 */
function viewProblems(raw: unknown): ConfigProblem[] {
  const { views, mcpServers } = (raw ?? {}) as { views?: unknown; mcpServers?: unknown };
  if (!isPlainObject(views) || !isPlainObject(mcpServers)) return [];
  const keys = Object.keys(mcpServers);
  const problems: ConfigProblem[] = [];
  for (const [name, view] of Object.entries(views)) {
    const servers = (view as { servers?: unknown } | null)?.servers;
    if (!Array.isArray(servers)) continue;
    servers.forEach((server: unknown, i) => {
      if (typeof server !== 'string' || server.length === 0 || keys.includes(server)) return;
      const [near] = suggestNames(server, keys, 1);
      problems.push({ path: `/views/${escapePointer(name)}/servers/${i}`, message: `names no server of mcpServers${near !== undefined ? `; did you mean "${near}"?` : ''}` });
    });
  }
  return problems;
}

/** `discovery.defaultLimit` may not exceed `discovery.maxLimit` (docs/tools.md: the default is clamped by the max). */
function limitProblems(raw: unknown): ConfigProblem[] {
  const discovery = (raw as { discovery?: { defaultLimit?: unknown; maxLimit?: unknown } } | null)?.discovery;
  const given = typeof discovery?.defaultLimit === 'number' ? discovery.defaultLimit : undefined;
  const max = typeof discovery?.maxLimit === 'number' ? discovery.maxLimit : 20;
  return given !== undefined && given > max ? [{ path: '/discovery/defaultLimit', message: `must not exceed maxLimit (${max})` }] : [];
}

function dedupe(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
