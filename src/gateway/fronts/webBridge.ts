/**
 * node:http ⇄ Web Standard `Request`/`Response`, so the SDK's
 * `WebStandardStreamableHTTPServerTransport` serves the gateway's own node:http front without
 * `@modelcontextprotocol/node` (and the hono stack it brings). The gateway's front has already read and
 * parsed the body and hands it to the transport as `parsedBody`; other callers (test fixtures, bench)
 * may pass the body through as a stream. A response stream (SSE) is copied chunk by chunk and
 * cancelled when the client goes away, which is how the transport learns of it.
 * Source: SDK v2 docs/migration/upgrade-to-v2.md (Imports & transports: Node vs Web Standard).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * A Web `Request` with `req`'s method, URL and headers, and its body as a stream when `streamBody`
 * (else none: the caller passes it parsed). Its signal aborts when the HTTP exchange ends early
 * (client gone before the response was finished).
 */
export function webRequest(req: IncomingMessage, res: ServerResponse, streamBody = false): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const aborted = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  // The path is all the transport reads of the URL; Host was checked (or not needed) by the caller.
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  const body = streamBody && method !== 'GET' && method !== 'HEAD' ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' as const } : {};
  return new Request(url, { method, headers, signal: aborted.signal, ...body });
}

/**
 * How long a response stream may wait on a client that reads nothing before it is closed, in ms. A
 * client that held its GET stream and stopped reading grew the gateway's memory with every
 * notification for as long as it stayed connected; a minute bounds how long what waits for it
 * (itself bounded by the caller's `filter`, backlog.ts) is held; a client that is alive opens a new stream.
 */
export const STALLED_STREAM_MS = 60_000;

/**
 * Writes `response` to `res`: status, headers, then the body as it arrives (an SSE stream may stay
 * open for the session's life), each chunk through `filter` when given (undefined drops it). Chunks are
 * handed to `res` as they come, so whatever waits for a slow client waits in node:http, where
 * `res.writableLength` counts it (backlog.ts), never uncounted in the body stream. Resolves when the
 * body ended or the client went away, or when the client read nothing for `stallMs` (default
 * {@link STALLED_STREAM_MS}) while data waited, which closes the connection; in the latter cases the
 * body stream is cancelled so the transport drops that stream.
 */
export async function sendWebResponse(response: Response, res: ServerResponse, stallMs = STALLED_STREAM_MS, filter?: (chunk: Uint8Array) => Uint8Array | undefined): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, response.statusText, headers);
  if (response.body === null) return void res.end();
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  const stall = stallWatch(res, stallMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      const chunk = filter ? filter(value) : value;
      if (chunk && !res.write(chunk)) stall.arm();
    }
  } catch {
    // The stream was cancelled (client gone) or errored: nothing more can be sent.
  } finally {
    stall.disarm();
    res.off('close', cancel);
    if (res.destroyed) cancel();
    else res.end();
  }
}

/**
 * Closes `res` once it has taken no data for `ms` after `arm()` (called when a write found it full);
 * a 'drain' (the client read what waited) disarms it.
 */
function stallWatch(res: ServerResponse, ms: number): { arm(): void; disarm(): void } {
  let timer: NodeJS.Timeout | undefined;
  const disarm = (): void => {
    clearTimeout(timer);
    timer = undefined;
    res.off('drain', disarm);
  };
  return {
    arm: () => {
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        disarm();
        res.destroy();
      }, ms);
      res.once('drain', disarm);
    },
    disarm,
  };
}
