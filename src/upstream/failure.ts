/**
 * A failed start in words a user can act on: the error with every cause under it (Node's fetch
 * throws a bare "fetch failed" whose `cause` says `connect ECONNREFUSED 127.0.0.1:9`), prefixed for a
 * remote upstream by its host, and followed for a stdio upstream by the stderr line worth quoting.
 * Pure. Source: issue #8 point 9 (a remote failure named neither the host nor the cause).
 */

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
 * Why an upstream failed to start: for a remote one `<host>: <cause chain>` (host and port only,
 * never the path, query or credentials of the URL, which may hold secrets); for a stdio one the
 * error's own message (a spawn failure already names its cause) with `(stderr: <quote>)` when a line
 * is worth quoting.
 */
export function describeFailure(error: unknown, where: { readonly url?: string; readonly stderrQuote?: string | undefined }): string {
  if (where.url !== undefined) return `${hostOf(where.url)}: ${causeChain(error)}`;
  const message = error instanceof Error ? error.message : String(error);
  return where.stderrQuote ? `${message} (stderr: ${where.stderrQuote})` : message;
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
