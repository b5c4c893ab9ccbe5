/**
 * The line a relay sends the shared instance before the client's own bytes, when the client chose a
 * view (docs/views.md): `{"toolshelf/relay":{"view":"NAME"}}`. It is no JSON-RPC message, so it cannot
 * be mistaken for one; a connection that starts with anything else is a client's stream as it is.
 * Relay and instance are always the same toolshelf version (share/paths.ts keys the socket on it).
 */
import type { Readable } from 'node:stream';

/** The key of the hello object. */
const HELLO_KEY = 'toolshelf/relay';
/** How every hello line begins (JSON.stringify's output for the object). */
const HELLO_PREFIX = Buffer.from(`{"${HELLO_KEY}":`);
/** Longest hello line in bytes: a view name is short; past this the connection is not a relay's. */
export const MAX_HELLO_BYTES = 4096;

/** What the relay tells the instance about its client. */
export interface RelayHello {
  /** The view the client chose; undefined: the whole shelf. */
  readonly view?: string;
}

/** The hello line for `hello`, newline included. */
export function helloLine(hello: RelayHello): string {
  return `${JSON.stringify({ [HELLO_KEY]: hello.view !== undefined ? { view: hello.view } : {} })}\n`;
}

/**
 * What a connection's first bytes say: `{ hello, rest }` once they hold a whole hello line (`rest`
 * the bytes after it), `{ hello: undefined, rest }` once they cannot begin one, or `'more'` while a
 * hello may still be arriving. A line that begins like a hello but is not one (or is over
 * {@link MAX_HELLO_BYTES}) counts as no hello. Pure.
 */
export function parseHello(buffered: Buffer): { readonly hello: RelayHello | undefined; readonly rest: Buffer } | 'more' {
  const n = Math.min(buffered.length, HELLO_PREFIX.length);
  if (!buffered.subarray(0, n).equals(HELLO_PREFIX.subarray(0, n))) return { hello: undefined, rest: buffered };
  const newline = buffered.indexOf(10);
  if (newline < 0) return buffered.length > MAX_HELLO_BYTES ? { hello: undefined, rest: buffered } : 'more';
  let value: unknown;
  try {
    value = JSON.parse(buffered.subarray(0, newline).toString('utf8'));
  } catch {
    return { hello: undefined, rest: buffered };
  }
  const body = (value as Record<string, unknown> | null)?.[HELLO_KEY] as { view?: unknown } | undefined;
  if (body === null || typeof body !== 'object') return { hello: undefined, rest: buffered };
  return { hello: typeof body.view === 'string' ? { view: body.view } : {}, rest: buffered.subarray(newline + 1) };
}

/**
 * Reads a connection's hello, if it starts with one, leaving every later byte unread on `input`
 * (paused). Resolves undefined hello when the stream ends first, with nothing left to read.
 */
export function readHello(input: Readable): Promise<{ readonly hello: RelayHello | undefined; readonly ended: boolean }> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0);
    const finish = (hello: RelayHello | undefined, rest: Buffer, ended: boolean): void => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.pause();
      if (rest.length > 0) input.unshift(rest);
      resolve({ hello, ended });
    };
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const parsed = parseHello(buffered);
      if (parsed !== 'more') finish(parsed.hello, parsed.rest, false);
    };
    const onEnd = (): void => finish(undefined, Buffer.alloc(0), true);
    input.on('data', onData);
    input.once('end', onEnd);
  });
}
