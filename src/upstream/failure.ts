/**
 * A failed start in words a user can act on: the error with every cause under it (Node's fetch
 * throws a bare "fetch failed" whose `cause` says `connect ECONNREFUSED 127.0.0.1:9`), prefixed for a
 * remote upstream by its host, and followed for a stdio upstream by the stderr line worth quoting.
 * Pure. Source: docs/robustness.md (a remote failure named neither the host nor the cause).
 */
import { printableLine } from '../lib/printable.js';
import { SUSPECT } from '../trust/clean.js';
import { shownValue } from '../lib/shownText.js';
import type { UpstreamTool } from '../catalog/types.js';

/**
 * Longest failure description, in characters: an upstream's own error message (an initialize refused
 * with 3 MB that cleared the screen) went whole and raw into the log, every client's call answers and
 * the shared instance's status lines.
 */
export const MAX_FAILURE_CHARS = 1000;

/** Deepest causes followed; a cycle or a very long chain stops here. */
const MAX_CAUSES = 5;

/**
 * `error`'s message followed by each `cause`'s (and each inner error of an AggregateError, as
 * Node's connect gives for IPv4 and IPv6 both refused), joined with `: `; a message already in the
 * text is not repeated. Never throws.
 */
export function causeChain(error: unknown): string {
  const parts: string[] = [];
  let text = '';
  const add = (message: string): void => {
    const trimmed = message.trim();
    if (trimmed === '' || text.includes(trimmed)) return;
    parts.push(trimmed);
    text = parts.join(': ');
  };
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSES && current !== undefined && current !== null; depth += 1) {
    if (!(current instanceof Error)) {
      add(String(current));
      break;
    }
    add(current.message);
    if (current instanceof AggregateError) for (const inner of current.errors.slice(0, 2)) add(inner instanceof Error ? inner.message : String(inner));
    current = current.cause;
  }
  return text || String(error);
}

/**
 * Socket errors that mean no connection to the host was made (Node's `code` on fetch's cause). A
 * reset or a socket error after connecting is not one: that server may still take SSE.
 */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Whether `error` (or a cause under it, or an inner error of an AggregateError) says the host could
 * not be reached at all: then another transport to the same URL (SSE after Streamable HTTP) can only
 * fail the same way, and its error would hide this one (`SSE error: TypeError: fetch
 * failed…` was quoted for a refused port). Never throws.
 */
export function isUnreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSES && current instanceof Error; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
    if (current instanceof AggregateError && current.errors.some((inner) => isUnreachable(inner))) return true;
    current = current.cause;
  }
  return false;
}

/**
 * Why an upstream failed to start: for a remote one `<host>: <cause chain>` (host and port only,
 * never the path, query or credentials of the URL, which may hold secrets); for a stdio one the
 * error's own message (a spawn failure already names its cause) with `(stderr: <quote>)` when a line
 * is worth quoting. One printable line of at most {@link MAX_FAILURE_CHARS} characters.
 */
export function describeFailure(error: unknown, where: { readonly url?: string; readonly stderrQuote?: string | undefined }): string {
  if (where.url !== undefined) return printableLine(`${hostOf(where.url)}: ${withoutUrl(causeChain(error), where.url)}`, MAX_FAILURE_CHARS);
  const message = error instanceof Error ? error.message : String(error);
  return printableLine(where.stderrQuote ? `${message} (stderr: ${where.stderrQuote})` : message, MAX_FAILURE_CHARS);
}

/**
 * `text` with `url` (as written and as parsed) replaced by `the server URL`, and the user and
 * password of any other URL in it left out: Node's fetch quotes a URL with credentials whole
 * ("Request cannot be constructed from a URL that includes credentials: http://user:secret@…").
 */
function withoutUrl(text: string, url: string): string {
  const forms = new Set([url]);
  try {
    forms.add(new URL(url).href);
  } catch {
    // Not a URL: only the text as written is looked for.
  }
  let out = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) if (form !== '') out = out.split(form).join('the server URL');
  return out.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1');
}

/** `host:port` of `url` as written (the default port omitted by URL is added back for clarity). */
function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
    return `${parsed.hostname}:${port}`;
  } catch {
    return 'the remote server';
  }
}

/**
 * Names of environment variables whose values count as credentials (`GITHUB_TOKEN`, `API_KEY`,
 * `DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`, …).
 */
const SECRET_NAME = /key|token|secret|passw|pwd|auth|credential|cookie|session|private/i;
/** Shortest value masked: a shorter one ("1", "true") would mask ordinary words. */
const MIN_SECRET_CHARS = 6;

/**
 * The values of the credential-named variables ({@link SECRET_NAME}) of `environments` (a stdio
 * upstream's `env`, the environment it inherits) that are at least {@link MIN_SECRET_CHARS} long,
 * longest first (so a value holding another is masked whole).
 */
export function secretValues(...environments: readonly (Readonly<Record<string, string | undefined>> | undefined)[]): string[] {
  const values = new Set<string>();
  for (const env of environments) for (const [name, value] of Object.entries(env ?? {})) if (value !== undefined && value.length >= MIN_SECRET_CHARS && SECRET_NAME.test(name)) values.add(value);
  return [...values].sort((a, b) => b.length - a.length);
}

/**
 * A stdio server's `args` as name → value, for {@link secretValues}: `--api-key=sk-…` and `--api-key
 * sk-…` give `api-key`, `GITHUB_TOKEN=ghp-…` (an `env`-style launcher) gives `GITHUB_TOKEN`. A token
 * passed as an argument was never masked, only one in a variable. Later flags of one name win.
 */
export function argumentValues(args: readonly string[] | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  const list = args ?? [];
  list.forEach((arg, index) => {
    const assigned = /^-{0,2}([A-Za-z_][\w.-]*)=([\s\S]+)$/.exec(arg);
    if (assigned) values[assigned[1]!] = assigned[2]!;
    else if (/^--?[A-Za-z][\w.-]*$/.test(arg) && index + 1 < list.length && !list[index + 1]!.startsWith('-')) values[arg.replace(/^-+/, '')] = list[index + 1]!;
  });
  return values;
}

/**
 * `text` (a line a stdio upstream wrote to stderr) with each of `secrets` replaced by `<redacted>`:
 * a server that echoes its token as it fails ("invalid API key sk-…") had it quoted in the log, in
 * the call answers of every client and in the shared instance's status lines (docs/architecture.md,
 * "Trust model": credentials never appear in logs or errors).
 */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('<redacted>');
  return out;
}

/** A run of the characters cleaning may remove (`trust/clean.ts` SUSPECT), which may sit between a credential's characters to split it. */
const INVISIBLE_RUN = `(?:${SUSPECT.source})*`;

/** The last secrets list and its pattern: a connection passes the same list until its entry changes. */
let splitMemo: { readonly secrets: readonly string[]; readonly pattern: RegExp } | undefined;

/**
 * A pattern matching each of `secrets` (longest first), its characters possibly split by runs of
 * invisible characters ({@link INVISIBLE_RUN}).
 */
function splitSecretPattern(secrets: readonly string[]): RegExp {
  if (splitMemo?.secrets !== secrets) {
    const each = secrets.map((secret) => [...secret].map((c) => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join(INVISIBLE_RUN));
    splitMemo = { secrets, pattern: new RegExp(each.join('|'), 'g') };
  }
  return splitMemo.pattern;
}

/**
 * `text` with each of `secrets` replaced by `<redacted>`, one split by runs of invisible characters
 * ({@link INVISIBLE_RUN}) masked whole with them; every other character stays, so cleaning and the
 * scanner still see what else the text hides. For text kept or shown before it is cleaned (the
 * instructions in the catalogue cache). Pure. Source: docs/security.md, "Credentials in declarations".
 */
export function withoutSplitSecrets(text: string, secrets: readonly string[]): string {
  return secrets.length === 0 ? text : text.replace(splitSecretPattern(secrets), '<redacted>');
}

/**
 * `tools` (an upstream's listing) with each of `secrets` replaced by `<redacted>` in every string and
 * key of each declaration but its `name` (which routes calls), at any depth: a server that pastes its
 * own token into a description or a schema must not hand it to a model, nor have it kept in the
 * catalogue cache or a pin. A token split by invisible characters is masked whole, those characters
 * with it; every other character stays as listed, so cleaning and the scanner still see what else
 * the text hides. A string with no credential in it is left as listed, and so is the whole array when
 * none has one. A declaration nested too deeply to walk is left as it is (the catalogue drops it:
 * docs/robustness.md). Pure. Source: docs/security.md, "Upstream errors and requests".
 */
export function withoutSecretsInTools(tools: readonly UpstreamTool[], secrets: readonly string[]): readonly UpstreamTool[] {
  if (secrets.length === 0) return tools;
  const mask = (text: string): string => withoutSplitSecrets(text, secrets);
  let changed = false;
  const masked = tools.map((tool) => {
    let shown: unknown;
    try {
      const { name, ...rest } = tool;
      const restShown = shownValue(rest, mask);
      shown = restShown === rest ? tool : { name, ...(restShown as object) };
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      shown = tool;
    }
    changed ||= shown !== tool;
    return shown as UpstreamTool;
  });
  return changed ? masked : tools;
}
