/**
 * The loopback redirect listener of one sign-in: HTTP on 127.0.0.1 at a free port (or the port a
 * stored registration was made with, when it is free), path `/callback`. It answers the browser,
 * checks `state`, and hands the query to the flow. Source: docs/sign-in.md; RFC 8252 §7.3
 * (loopback redirect, any port); OAuth 2.1 §7.12 (`state` against CSRF).
 */
import { createServer, type Server } from 'node:http';

/** Path of the redirect URI on the loopback listener. */
export const CALLBACK_PATH = '/callback';

/** How a callback query reads: the parameters to finish with, or why it cannot be used. */
export type CallbackVerdict = { ok: true; params: URLSearchParams } | { ok: false; reason: string };

/**
 * Checks one callback query against the flow's `state` (pure). An `error` from the authorization
 * server is reported by its code only: its description is not shown, since a mixed-up or hostile
 * server controls it.
 */
export function checkCallback(query: URLSearchParams, expectedState: string): CallbackVerdict {
  if (query.get('state') !== expectedState) return { ok: false, reason: 'the callback carried the wrong state (not this sign-in); ignored' };
  const error = query.get('error');
  if (error) return { ok: false, reason: `the authorization server refused: ${error.replace(/[^\w.-]/g, '').slice(0, 64)}` };
  if (!query.get('code')) return { ok: false, reason: 'the callback carried no authorization code' };
  return { ok: true, params: query };
}

/** A bound listener: its redirect URI, the wait for the callback, and close. */
export interface CallbackListener {
  readonly redirectUrl: string;
  /** Resolves with the checked query; rejects with a clear message after `timeoutMs` or on a refusal. */
  wait(timeoutMs: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}

const PAGE = (text: string): string => `<!doctype html><meta charset="utf-8"><title>toolshelf</title><p>${text}</p>`;

/** Binds the listener on 127.0.0.1: `preferredPort` when free, else a free port chosen by the OS. */
export async function listenForCallback(expectedState: string, preferredPort?: number): Promise<CallbackListener> {
  let settle: ((verdict: CallbackVerdict) => void) | undefined;
  const verdicts: CallbackVerdict[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) return void res.writeHead(404).end();
    const verdict = checkCallback(url.searchParams, expectedState);
    res.writeHead(verdict.ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
    res.end(PAGE(verdict.ok ? 'Signed in. You can close this tab and return to toolshelf.' : `Sign-in failed: ${verdict.reason}.`));
    // A wrong state is someone else's request: keep waiting for ours.
    if (!verdict.ok && verdict.reason.includes('wrong state')) return;
    if (settle) settle(verdict);
    else verdicts.push(verdict);
  });
  const port = await bind(server, preferredPort).catch(() => bind(server, 0));
  return {
    redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    wait: (timeoutMs) =>
      new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer reached the sign-in callback within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
        timer.unref();
        settle = (verdict) => {
          clearTimeout(timer);
          if (verdict.ok) resolve(verdict.params);
          else reject(new Error(verdict.reason));
        };
        const early = verdicts.shift();
        if (early) settle(early);
      }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function bind(server: Server, port: number | undefined): Promise<number> {
  if (port === undefined) return Promise.reject(new Error('no preferred port'));
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.removeListener('error', onError);
      resolve((server.address() as { port: number }).port);
    });
  });
}
