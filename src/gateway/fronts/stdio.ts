/**
 * Serves one gateway session on stdin/stdout. stdout carries protocol messages only (docs/cli.md).
 * The SDK's stdio server transport is wrapped, not forked: it ignores stdin end (watched here), skips
 * lines that are not JSON without a word (SDK v2; so they are cut out before it and answered here with
 * -32700), reports JSON that is not JSON-RPC through onerror without the line (so an invalid request
 * whose id can be read is cut out before it and answered here with -32600 and that id; the rest is
 * answered from onerror with id null), and closes for good on one line over its buffer (so such lines
 * are cut out before it and answered with -32600). Source: MCP spec, Transports › stdio; JSON-RPC 2.0
 * §5, §5.1.
 */
import { Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { serveStdio as serveEras, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { mib, unreadRefusal } from './backlog.js';
import { CallLane, type LaneTarget } from './callLane.js';
import { errorResponse, invalidRequestAnswer } from './invalidMessage.js';
import { nextDrain } from '../../lib/drain.js';
import { fitLine } from './stdioLine.js';
import type { GatewaySession } from '../legacy/session.js';

/**
 * The modern side of one stdio connection: its Server, built when the connection is pinned to the
 * modern era; shown each inbound message of a connection not pinned legacy (the SDK entry answers
 * `subscriptions/listen` itself, so its filter is read here); closed when the input ends.
 */
export interface ModernStdio {
  server(): Server & { laneTarget(): LaneTarget };
  /**
   * Sees an inbound message before the SDK does. A promise holds it (and every later line) back
   * until it settles, and gives the message to pass on in its place.
   */
  observe(message: unknown): Promise<unknown> | undefined;
  close(): void;
}

/**
 * Most bytes waiting unread for a stdio client before notifications to it are dropped (twice the
 * longest line, so one whole message always fits behind the backlog). Bounds the gateway's memory
 * when a client stops reading during an upstream's progress flood.
 */
export const MAX_BACKLOG_BYTES = 2 * STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** Longest accepted stdin line in bytes, newline included: the SDK's own buffer (10 MiB). */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/**
 * Largest tool result sent to a stdio client, in bytes: SDK stdio clients close the connection on a
 * line over 10 MiB, so 16 KiB are left for the JSON-RPC envelope.
 */
export const MAX_STDIO_RESULT_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE - 16 * 1024;

/**
 * Most bytes waiting unread for one stdio client (or one shared-instance connection) before answers
 * to it are replaced by a short error and its input is no longer read: four whole results of the
 * largest size a stdio client accepts ({@link MAX_STDIO_RESULT_BYTES}), about 40 MiB. A client that
 * reads keeps far less waiting; one that stopped reading while its calls answered 8 MB each grew a
 * shared instance, and so every client's session, past 1.3 GB (docs/robustness.md).
 */
export const MAX_PENDING_OUTPUT_BYTES = 4 * MAX_STDIO_RESULT_BYTES;

/**
 * Serves this process's stdio; `onEnd` runs once when the client goes away. `modern` builds the
 * Server for a connection that opens with `server/discover` (see {@link serveStream}).
 */
export function serveStdio(session: GatewaySession, onEnd: () => void, modern: () => ModernStdio): Promise<void> {
  return serveStream(session, process.stdin, process.stdout, onEnd, modern);
}

/**
 * Connects a newline-delimited JSON-RPC stream pair with stdio's framing and checks: the process's
 * stdio, or one relayed client's socket in a shared instance. `onEnd` runs once
 * when the input ends. The SDK's era-pinning entry owns the connection: an opening `initialize` pins
 * it to `session` (legacy), an opening `server/discover` to the Server `modern` builds
 * (docs/protocol-eras.md); `modern()` is made for each connection, shown its inbound messages and told when the input ends.
 */
export async function serveStream(session: GatewaySession, input: Readable, output: Writable, onEnd: () => void, modern: () => ModernStdio): Promise<void> {
  let ended = false;
  const modernSide = modern();
  // `initialize` pins a legacy connection before its first other message; a modern one is pinned
  // only at its first request after `server/discover`, so until then every message is shown to it.
  let legacy = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    lane.close();
    modernSide.close();
    onEnd();
  };
  input.once('end', end);
  input.once('close', end);
  const lines = new LineFilter(MAX_LINE_BYTES, {
    // A client that does not read its answers is not read either, as behind a full pipe: it cannot queue more work.
    wait: () => (output.writableLength > MAX_PENDING_OUTPUT_BYTES ? nextDrain(output).catch(() => undefined) : undefined),
    oversized: () => void answer(ProtocolErrorCode.InvalidRequest, `Invalid Request: line over ${MAX_LINE_BYTES} bytes`),
    admit: (line) => {
      const value = parseOrUndefined(line);
      if (value === undefined) {
        void answer(ProtocolErrorCode.ParseError, 'Parse error: line is not JSON');
        return false;
      }
      // Before the validity check: a call the lane takes is a valid request by construction (callLane.ts).
      if (lane.take(value)) return false;
      // The SDK transport would report an invalid request without the line, so only id null could be sent.
      const answered = invalidRequestAnswer(value);
      if (answered) {
        void transport.send(answered);
        return false;
      }
      const held = legacy ? undefined : modernSide.observe(value);
      return held ? held.then((message) => Buffer.from(`${JSON.stringify(message)}\n`)) : true;
    },
  });
  const transport = new BoundedStdioTransport(lines, output, (reason) => session.logger.warn(`not sent to the client: ${reason}`));
  const lane: CallLane = new CallLane((message) => transport.send(message));
  const answer = (code: number, message: string): Promise<void> => transport.send(errorResponse(null, code, message));
  // The entry takes the transport's onclose and onerror: the input's end (above) tells of the client going.
  const onerror = (error: Error): void => {
    if (error.name === 'ZodError') void answer(ProtocolErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
  };
  input.pipe(lines);
  serveEras(
    ({ era }) => {
      if (era === 'modern') {
        const server = modernSide.server();
        lane.pin(server.laneTarget());
        return server;
      }
      legacy = true;
      lane.pin(session.laneTarget());
      return session.server;
    },
    { transport, onerror },
  );
}

/**
 * The SDK's stdio transport, writing no line longer than a stdio client reads ({@link MAX_LINE_BYTES},
 * the same limit as inbound): a longer message is replaced, dropped or refused (stdioLine.ts), and
 * `warn` told why. Each message is serialised once, to be measured and written. Notifications and
 * requests written behind a full pipe wait for one shared 'drain' (lib/drain.ts): the SDK's send adds
 * two listeners per message, O(n²) in a flood of upstream progress; a response's send resolves once
 * written. Errors on the stream reach the SDK's own listener. Past
 * {@link MAX_PENDING_OUTPUT_BYTES} unread, a response becomes a short error response under its id
 * and a request to the client is refused, so a client that stopped reading cannot grow memory.
 */
export class BoundedStdioTransport extends StdioServerTransport {
  private ended = false;
  /** Notifications dropped since the backlog went over {@link MAX_BACKLOG_BYTES}; undefined while under it. */
  private shed: number | undefined;
  /** Answers replaced by an error since the backlog went over {@link MAX_PENDING_OUTPUT_BYTES}; undefined while under it. */
  private refused: number | undefined;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly warn: (reason: string) => void,
  ) {
    super(input, output);
  }

  override close(): Promise<void> {
    this.ended = true;
    return super.close();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (this.ended || this.output.destroyed) return Promise.reject(new Error('StdioServerTransport is closed'));
    if (this.shedding(message)) return Promise.resolve();
    const unread = this.unread(message);
    if (unread !== undefined) {
      if ('method' in message) return Promise.reject(new Error(unread));
      message = { jsonrpc: '2.0', id: message.id, error: { code: ProtocolErrorCode.InternalError, message: unread } } as JSONRPCMessage;
    }
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const verdict = fitLine(message, json, MAX_LINE_BYTES);
    if (verdict.kind !== 'fits') {
      this.warn(verdict.reason);
      if (verdict.kind === 'drop') return Promise.resolve();
      if (verdict.kind === 'refuse') return Promise.reject(new Error(`not sent: ${verdict.reason}`));
      json = JSON.stringify(verdict.message);
    }
    const flowing = this.output.write(`${json}\n`);
    // A response ends its request: its sender is not held behind the drain, as it would keep the whole
    // result alive while the client does not read; MAX_PENDING_OUTPUT_BYTES bounds what waits.
    return flowing || !('method' in message) ? Promise.resolve() : nextDrain(this.output);
  }

  /**
   * Whether to drop `message`: a notification (progress, a log line) while more than
   * {@link MAX_BACKLOG_BYTES} wait unread for the client, so an upstream's flood to a client that
   * stopped reading cannot grow memory without bound. Responses and requests are always kept: each
   * answers or asks for one call. Warns once when shedding starts and once when it ends.
   */
  private shedding(message: JSONRPCMessage): boolean {
    const backlogged = this.output.writableLength > MAX_BACKLOG_BYTES;
    if (!backlogged && this.shed !== undefined) {
      this.warn(`the client reads again; ${this.shed} notification(s) were dropped while it did not`);
      this.shed = undefined;
    }
    if (!backlogged || 'id' in message) return false;
    if (this.shed === undefined) {
      this.warn(`the client is not reading: over ${MAX_BACKLOG_BYTES / (1024 * 1024)} MiB wait for it, so notifications are dropped until it reads again`);
      this.shed = 0;
    }
    this.shed += 1;
    return true;
  }

  /**
   * Why `message` is not sent as it is, when it answers or asks the client (it has an id) while more
   * than {@link MAX_PENDING_OUTPUT_BYTES} wait unread for it; undefined otherwise. Warns once when
   * this starts and once when the client has read its backlog.
   */
  private unread(message: JSONRPCMessage): string | undefined {
    const backlogged = this.output.writableLength > MAX_PENDING_OUTPUT_BYTES;
    if (!backlogged && this.refused !== undefined) {
      this.warn(`the client reads again; ${this.refused} message(s) to it were replaced by an error while it did not`);
      this.refused = undefined;
    }
    if (!backlogged || !('id' in message)) return undefined;
    if (this.refused === undefined) {
      this.warn(`the client is not reading: over ${mib(MAX_PENDING_OUTPUT_BYTES)} wait for it, so answers to it are replaced by an error and its input waits until it reads again`);
      this.refused = 0;
    }
    this.refused += 1;
    return unreadRefusal(MAX_PENDING_OUTPUT_BYTES);
  }
}

/** The JSON value of a line, or undefined when it is not JSON. */
function parseOrUndefined(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** What {@link LineFilter} does with a line. */
interface LineRules {
  /** A promise when no more input may be taken yet (the next line waits until it settles); undefined to go on. */
  wait(): Promise<void> | undefined;
  /** Called once for a line longer than the limit (dropped). */
  oversized(): void;
  /**
   * Whether a whole line within the limit goes on to the SDK transport; it answers any line it
   * refuses. A promise holds the line and every later one until it settles, and gives the line to
   * pass on in its place.
   */
  admit(line: Buffer): boolean | Promise<Buffer>;
}

/**
 * Passes stdin through line by line (bytes, `\n`-terminated), dropping any line longer than
 * `maxLineBytes` and any line `admit` refuses, reporting each oversized line once.
 */
class LineFilter extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private oversized = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly rules: LineRules,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.feed(chunk, 0, done);
  }

  /**
   * Splits `chunk` from `start` into lines; a line held back by its admission, or by the rules' wait,
   * resumes the rest when it is let through.
   */
  private feed(chunk: Buffer, start: number, done: TransformCallback): void {
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      const waiting = this.rules.wait();
      if (waiting) return void waiting.then(() => this.feed(chunk, start, done));
      this.collect(chunk.subarray(start, newline + 1));
      start = newline + 1;
      const held = this.endLine();
      if (held) return void held.then(() => this.feed(chunk, start, done));
    }
    if (start < chunk.length) this.collect(chunk.subarray(start));
    done();
  }

  private collect(piece: Buffer): void {
    this.size += piece.length;
    if (this.oversized) return;
    if (this.size <= this.maxLineBytes) return void this.parts.push(piece);
    this.oversized = true;
    this.parts = [];
  }

  /** Ends the current line; a promise when its admission holds it back (pushed once that settles). */
  private endLine(): Promise<void> | undefined {
    // One part is the usual case (a whole line in one read): no copy.
    const line = this.oversized ? undefined : this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    this.oversized = false;
    if (line === undefined) return void this.rules.oversized();
    const admitted = this.rules.admit(line);
    if (admitted === true) this.push(line);
    return admitted instanceof Promise ? admitted.then((replaced) => void this.push(replaced), () => void this.push(line)) : undefined;
  }
}
