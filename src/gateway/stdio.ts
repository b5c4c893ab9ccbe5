/**
 * Serves one gateway session on stdin/stdout. stdout carries protocol messages only (DESIGN §11).
 * The SDK's stdio server transport is wrapped, not forked: it ignores stdin end (watched here), drops
 * lines it cannot parse without a word (answered here with -32700 / -32600, with the request's id when
 * it can be read), and closes for good on one line over its buffer (so such lines are cut out before it
 * and answered with -32600). Source: MCP spec, Transports › stdio; JSON-RPC 2.0 §5, §5.1; issue #8 item 7.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { errorResponse, invalidRequestAnswer } from './invalidMessage.js';
import type { GatewaySession } from './session.js';

/** Longest accepted stdin line in bytes, newline included: the SDK's own buffer (10 MiB). */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/**
 * Largest tool result sent to a stdio client, in bytes: SDK stdio clients close the connection on a
 * line over 10 MiB, so 16 KiB are left for the JSON-RPC envelope (breaker finding C4).
 */
export const MAX_STDIO_RESULT_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE - 16 * 1024;

/** Connects `session` to this process's stdio; `onEnd` runs once when the client goes away. */
export async function serveStdio(session: GatewaySession, onEnd: () => void): Promise<void> {
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  const lines = new LineLimit(
    MAX_LINE_BYTES,
    () => void answer(ErrorCode.InvalidRequest, `Invalid Request: line over ${MAX_LINE_BYTES} bytes`),
    (line) => {
      // An invalid request whose id can be read is answered here with that id (issue #8 item 7): the SDK
      // transport would report it without the line, so only id null could be sent.
      const answered = invalidRequestAnswer(parseOrUndefined(line));
      if (answered) void transport.send(answered);
      return answered === undefined;
    },
  );
  const transport = new StdioServerTransport(lines, process.stdout);
  const answer = (code: number, message: string): Promise<void> => transport.send(errorResponse(null, code, message));
  transport.onclose = end;
  transport.onerror = (error) => {
    if (error instanceof SyntaxError) void answer(ErrorCode.ParseError, 'Parse error: line is not JSON');
    else if (error.name === 'ZodError') void answer(ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
  };
  process.stdin.pipe(lines);
  await session.connect(transport);
}

/** The JSON value of a line, or undefined when it is not JSON (the SDK transport answers that with -32700). */
function parseOrUndefined(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Passes stdin through line by line (bytes, `\n`-terminated), dropping any line longer than
 * `maxLineBytes` (calling `onOversized` once for it) and any line `admit` returns false for.
 */
class LineLimit extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private oversized = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onOversized: () => void,
    private readonly admit: (line: Buffer) => boolean,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.collect(chunk.subarray(start, newline + 1));
      this.endLine();
      start = newline + 1;
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

  private endLine(): void {
    const line = Buffer.concat(this.parts);
    if (this.oversized) this.onOversized();
    else if (this.admit(line)) this.push(line);
    this.parts = [];
    this.size = 0;
    this.oversized = false;
  }
}
