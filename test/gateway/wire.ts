/**
 * Raw JSON-RPC on the wire, below the SDK Client, for tests that send what a well-behaved client
 * never would: a stdio gateway child written to line by line, and single Streamable HTTP POSTs
 * whose answer (JSON body or SSE stream) is parsed back into messages. Every child started here is
 * ended by its `close()`. Source: MCP spec, Transports (stdio; Streamable HTTP).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { cliPath } from '../helpers/gateway.js';

/** A JSON-RPC message as parsed off the wire; fields are checked by the tests. */
export type Message = Record<string, unknown> & { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };

/** Protocol version the raw clients announce. */
export const PROTOCOL_VERSION = '2025-06-18';

/** An `initialize` request with id `id`. */
export function initializeRequest(id: number | string = 0): Message {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw-client', version: '1.0.0' } } };
}

/** A gateway child on stdio, spoken to in raw lines. */
export interface RawStdio {
  readonly pid: number;
  /** Every message the gateway wrote to stdout, in order. */
  readonly received: Message[];
  /** Lines on stdout that were not JSON (must stay empty: stdout carries protocol only, docs/cli.md). */
  readonly junk: string[];
  /** Writes `line` plus a newline. */
  write(line: string): void;
  /** Sends `message` and resolves with the response carrying its id (rejects after `ms`). */
  request(message: Message, ms?: number): Promise<Message>;
  /** Writes `line` and resolves with the first response (result or error) received after it; notifications are passed over. */
  reply(line: string, ms?: number): Promise<Message>;
  /** Sends `initialize` and `notifications/initialized`. */
  initialize(): Promise<Message>;
  /** Opens the connection in the 2026-07-28 era: `server/discover` with `envelope` as its `_meta`; rejects unless answered with a result. */
  discover(envelope: Record<string, unknown>): Promise<Message>;
  /** Ends stdin and resolves with the exit code (SIGKILL after 5 s). */
  close(): Promise<number | null>;
}

/** Starts `dist/cli.js --config <path>` over stdio without a client library. */
export function startRawStdio(configPath: string): RawStdio {
  const child = spawn(process.execPath, [cliPath, '--config', configPath, '--no-share'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const received: Message[] = [];
  const junk: string[] = [];
  const stderr: string[] = [];
  let waiters: { test: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      junk.push(line);
      return;
    }
    received.push(message);
    const matched = waiters.filter((w) => w.test(message));
    waiters = waiters.filter((w) => !w.test(message));
    for (const w of matched) w.resolve(message);
  });
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const next = (test: (m: Message) => boolean, ms = 10_000): Promise<Message> => {
    const seen = received.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching message in ${ms} ms; stderr: ${stderr.slice(-5).join(' | ')}`)), ms);
      waiters.push({ test, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  };
  const write = (line: string): void => void child.stdin!.write(`${line}\n`);
  const request = (message: Message, ms?: number): Promise<Message> => {
    const answer = next((m) => m.id === message.id && ('result' in m || 'error' in m), ms);
    write(JSON.stringify(message));
    return answer;
  };
  const reply = (line: string, ms?: number): Promise<Message> => {
    const before = received.length;
    // A response, not a notification the gateway may send at any time (list_changed once an upstream is up).
    const answer = next((m) => received.indexOf(m) >= before && ('result' in m || 'error' in m), ms);
    write(line);
    return answer;
  };
  return {
    pid: child.pid as number,
    received,
    junk,
    write,
    request,
    reply,
    async initialize() {
      const answer = await request(initializeRequest('init'));
      write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      return answer;
    },
    async discover(envelope) {
      const answer = await request({ jsonrpc: '2.0', id: 'discover', method: 'server/discover', params: { _meta: envelope } });
      if (answer.result === undefined) throw new Error(`server/discover was not answered with a result: ${JSON.stringify(answer)}`);
      return answer;
    },
    async close() {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** One HTTP answer: status, headers and the JSON-RPC messages in its body (JSON or SSE). */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly messages: Message[];
  readonly text: string;
}

/** Headers every Streamable HTTP POST carries (MCP spec, Transports › Sending messages). */
export const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;

/** POSTs `body` (sent as is when a string) to `url` and reads the whole answer. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...POST_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, messages: parseBody(text, response.headers.get('content-type')), text };
}

/** JSON-RPC messages in a JSON or `text/event-stream` body (one per `data:` event). */
function parseBody(text: string, contentType: string | null): Message[] {
  if (contentType?.includes('text/event-stream')) {
    return text
      .split('\n')
      .filter((line) => line.startsWith('data:') && line.length > 5)
      .map((line) => JSON.parse(line.slice(5).trim()) as Message);
  }
  if (!text) return [];
  const value = JSON.parse(text) as Message | Message[];
  return Array.isArray(value) ? value : [value];
}

/** A raw Streamable HTTP session: initialized, with its id sent on every later POST. */
export interface RawHttpSession {
  readonly id: string;
  /** POSTs `body` with the session id (and `extra` headers) and returns the answer. */
  post(body: unknown, extra?: Record<string, string>): Promise<HttpAnswer>;
  /** POSTs one request and returns the response carrying its id. */
  request(message: Message): Promise<Message>;
  /** DELETEs the session; resolves with the status. */
  remove(): Promise<number>;
}

/** Initializes a session at `url` with raw POSTs. `headers` go on every request (e.g. a token). */
export async function openRawHttp(url: string, headers: Record<string, string> = {}): Promise<RawHttpSession> {
  const init = await post(url, initializeRequest(), headers);
  const id = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !id) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const withSession = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL_VERSION };
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, withSession);
  if (initialized.status !== 202) throw new Error(`initialized notification got ${initialized.status}`);
  return {
    id,
    post: (body, extra = {}) => post(url, body, { ...withSession, ...extra }),
    async request(message) {
      const answer = await post(url, message, withSession);
      const found = answer.messages.find((m) => m.id === message.id && ('result' in m || 'error' in m));
      if (!found) throw new Error(`no response to ${JSON.stringify(message).slice(0, 200)}: ${answer.status} ${answer.text.slice(0, 300)}`);
      return found;
    },
    async remove() {
      const response = await fetch(url, { method: 'DELETE', headers: withSession });
      await response.arrayBuffer();
      return response.status;
    },
  };
}

/** A gateway child serving HTTP, started with exactly the given flags and environment. */
export interface SpawnedHttp {
  readonly url: string;
  readonly child: ChildProcess;
  /** Its stderr so far, line by line. */
  readonly stderr: string[];
  /** SIGTERM, then SIGKILL after 5 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `dist/cli.js --config <path> <args>` (args must include `--http`) and waits for its URL. */
export async function spawnHttp(configPath: string, args: string[], env: Record<string, string> = {}): Promise<SpawnedHttp> {
  const child = spawn(process.execPath, [cliPath, '--config', configPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const stderr: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${stderr.join('\n')}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      const match = /serving Streamable HTTP at (\S+)/.exec(stderr.join('\n'));
      if (match) resolve((clearTimeout(timer), match[1] as string));
    });
    void exited.then((code) => reject(new Error(`gateway exited ${code}: ${stderr.join('\n')}`)));
  });
  return {
    url,
    child,
    stderr,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Options for {@link rawHttp}: any headers (Host included); a body sent chunked when `chunked`. */
export interface RawHttpOptions {
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  readonly chunked?: boolean;
}

/** One POST through node:http, which (unlike fetch) sends Host and Origin as given. */
export function rawHttp(url: string, options: RawHttpOptions = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { headers = {}, body, chunked = false } = options;
  const length = body !== undefined && !chunked ? { 'content-length': String(Buffer.byteLength(body)) } : {};
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...POST_HEADERS, ...length, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
