/**
 * The node:http ⇄ Web bridge's response streams (gateway/fronts/webBridge.ts): a client that keeps its
 * stream open but reads nothing is closed after the stall time, and the body stream is cancelled so
 * the SDK transport drops it (the SDK's queue grew with every notification for as long as
 * such a client stayed connected). A client that reads gets the whole stream. Real node:http server,
 * real TCP clients on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { sendWebResponse } from '../../../src/gateway/fronts/webBridge.js';
import { waitFor } from '../../helpers/gateway.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A body that enqueues 64 KiB every 5 ms whatever the reader does, as the SDK's SSE stream does; `cancelled` once cancelled. */
function floodingBody(): { body: ReadableStream<Uint8Array>; state: { cancelled: boolean; enqueued: number } } {
  const state = { cancelled: false, enqueued: 0 };
  let timer: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setInterval(() => {
        controller.enqueue(new Uint8Array(64 * 1024).fill(97));
        state.enqueued += 1;
      }, 5);
    },
    cancel() {
      clearInterval(timer);
      state.cancelled = true;
    },
  });
  return { body, state };
}

/** Serves one streamed response per request through sendWebResponse; resolves with the port and the send's end. */
async function serve(stallMs: number): Promise<{ port: number; ended: Promise<void>; state: { cancelled: boolean; enqueued: number } }> {
  const { body, state } = floodingBody();
  let end: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (end = resolve));
  server = createServer((_req, res) => void sendWebResponse(new Response(body, { headers: { 'content-type': 'text/event-stream' } }), res, stallMs).then(end));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, ended, state };
}

it('closes a stream whose client reads nothing for the stall time, and cancels its body', async () => {
  const { port, ended, state } = await serve(300);
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.write('GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  let done = false;
  void ended.then(() => (done = true));
  expect(await waitFor(() => done && state.cancelled, 30_000)).toBe(true);
  const enqueuedAtEnd = state.enqueued;
  await new Promise((r) => setTimeout(r, 100));
  // Nothing is queued for it any more.
  expect(state.enqueued).toBe(enqueuedAtEnd);
  socket.destroy();
});

it('keeps a stream whose client reads', async () => {
  const { port, state } = await serve(300);
  const socket = connect(port, '127.0.0.1');
  let received = 0;
  socket.on('data', (chunk: Buffer) => (received += chunk.length));
  socket.write('GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  // Well past the stall time, and more than any socket buffer holds.
  expect(await waitFor(() => received > 8 * 1024 * 1024, 60_000)).toBe(true);
  expect(state.cancelled).toBe(false);
  socket.destroy();
  expect(await waitFor(() => state.cancelled, 10_000)).toBe(true);
});
