/**
 * An in-process upstream for UpstreamConnection tests: an SDK Server behind an in-memory transport,
 * created afresh for every connection attempt, so a test can crash it, make starts fail, hang or
 * stall, expire its session, flood it with log messages, and count what reached it. No processes,
 * sockets or real timers.
 */
import { InMemoryTransport, Server, SdkHttpError, SdkErrorCode } from '@modelcontextprotocol/server';
import type { Transport, JSONRPCMessage, Tool } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../../src/config/types.js';
import type { ConnectionOptions } from '../../src/upstream/connection.js';
import { silentLogger } from '../../src/trace/log.js';
import { SpawnError } from '../../src/upstream/process.js';
import type { TransportFactory } from '../../src/upstream/transport.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A tool with an empty object schema. */
export const tool = (name: string): Tool => ({ name, description: `The ${name} tool.`, inputSchema: { type: 'object' } });

/**
 * What one connection attempt does: serve; fail to spawn (`fail`); fail for a configuration
 * problem (`misconfigured`, a SpawnError); never answer initialize (`hang`); or never finish
 * starting the transport, like an SSE stream that never sends its endpoint (`stall`).
 */
export type AttemptMode = 'serve' | 'fail' | 'misconfigured' | 'hang' | 'stall';

export class FakeUpstream {
  tools: Tool[] = [tool('echo')];
  /** Modes for the next attempts, consumed in order; `serve` once empty. */
  readonly plan: AttemptMode[] = [];
  /** Date.now() of every connection attempt. */
  readonly attempts: number[] = [];
  listCalls = 0;
  /** While true, each tools/list answer (the tools as they were when it arrived) waits for {@link releaseLists}. */
  holdLists = false;
  private readonly heldLists: (() => void)[] = [];
  /** Names of calls whose request was cancelled (signal aborted) at the server. */
  readonly cancelled: string[] = [];
  private server: Server | undefined;
  private serverSide: InMemoryTransport | undefined;
  private expired = false;

  /** The factory to pass as `transports`. */
  readonly transports: TransportFactory = () => [() => this.attempt()];

  /** Connection options for a test: silent, fixed jitter (0.5), 1 s start timeout. */
  options(overrides: Partial<ConnectionOptions> = {}): ConnectionOptions {
    return { baseDir: '/', logger: silentLogger, version: 'test', onToolsChanged: () => {}, random: () => 0.5, startTimeoutMs: 1000, transports: this.transports, ...overrides };
  }

  /** The process exits: the connection sees its transport close. */
  async crash(): Promise<void> {
    await this.serverSide?.close();
  }

  /** The server forgets every session: the next request fails with HTTP 404. */
  expireSession(): void {
    this.expired = true;
  }

  /** Sends `count` info log messages (`notifications/message`) in a row. */
  async log(count: number): Promise<void> {
    for (let i = 0; i < count; i++) await this.server?.sendLoggingMessage({ level: 'info', data: `log ${i}` });
  }

  /** Sends `notifications/tools/list_changed` `count` times in a row. */
  async announce(count = 1): Promise<void> {
    for (let i = 0; i < count; i++) await this.server?.sendToolListChanged();
  }

  /** Lets every held tools/list answer go, and stops holding new ones. */
  releaseLists(): void {
    this.holdLists = false;
    for (const release of this.heldLists.splice(0)) release();
  }

  private attempt(): Transport {
    this.attempts.push(Date.now());
    const mode = this.plan.shift() ?? 'serve';
    if (mode === 'fail') return failing(new Error('spawn fake ENOENT'));
    if (mode === 'misconfigured') return failing(new SpawnError('working folder /nonexistent/dir does not exist'));
    if (mode === 'stall') return { start: () => new Promise<void>(() => {}), send: async () => undefined, close: async () => undefined };
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    if (mode === 'hang') return clientSide;
    this.expired = false;
    this.serverSide = serverSide;
    this.server = this.makeServer();
    void this.server.connect(serverSide);
    return this.withSession(clientSide);
  }

  /** A Streamable-HTTP-like client side: holds a session id and answers 404 once the server forgot it. */
  private withSession(inner: InMemoryTransport): Transport {
    const send = inner.send.bind(inner);
    inner.sessionId = `session-${this.attempts.length}`;
    inner.send = async (message: JSONRPCMessage) => {
      if (this.expired) throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Session not found', { status: 404, statusText: 'Not Found' });
      return send(message);
    };
    return inner;
  }

  private makeServer(): Server {
    const server = new Server({ name: 'fake', version: '1' }, { capabilities: { tools: { listChanged: true }, logging: {} } });
    server.setRequestHandler('tools/list', async () => {
      this.listCalls += 1;
      const tools = this.tools;
      if (this.holdLists) await new Promise<void>((resolve) => this.heldLists.push(resolve));
      return { tools };
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const args = (request.params.arguments ?? {}) as { ms?: number; ticks?: number; everyMs?: number };
      ctx.mcpReq.signal.addEventListener('abort', () => this.cancelled.push(request.params.name));
      const token = request.params._meta?.progressToken;
      switch (request.params.name) {
        case 'slow':
          await sleep(args.ms ?? 1000);
          return { content: [{ type: 'text', text: 'slow done' }] };
        case 'ticks':
          for (let i = 1; i <= (args.ticks ?? 5); i++) {
            await sleep(args.everyMs ?? 100);
            if (ctx.mcpReq.signal.aborted) return { content: [] };
            if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i } });
          }
          return { content: [{ type: 'text', text: 'ticked' }] };
        default:
          return { content: [{ type: 'text', text: `${request.params.name} ok` }] };
      }
    });
    return server;
  }
}

/** A transport whose start fails with `error`, like a command that cannot be spawned. */
function failing(error: Error): Transport {
  return {
    start: () => Promise.reject(error),
    send: () => Promise.reject(new Error('not started')),
    close: async () => undefined,
  };
}

/** A stdio-shaped server entry (never spawned: the fake's transports are used). */
export const fakeServer = (extra: Partial<ServerConfig> = {}): ServerConfig => ({ command: 'fake', ...extra }) as ServerConfig;
