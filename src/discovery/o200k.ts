/**
 * The o200k_base tokenizer (gpt-tokenizer), in a worker thread started on first use and ended once
 * unused for {@link IDLE_MS}. Loading it costs ~0.2–0.8 s and ~60 MiB of RSS (measured: a bare Node
 * process 40 MiB, after the import 106 MiB), so a gateway that never needs an exact count (a manifest
 * that fits by bytes, or one read from the catalogue cache) never pays for it, and one that fitted a
 * manifest cold gives the memory back when the worker ends (docs/performance.md, "Memory"). Calls stay
 * synchronous: the caller blocks on an Atomics wait while the worker counts.
 * Source: docs/performance.md (Memory).
 */
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/** How long the worker stays after its last count, in ms: a manifest is fitted by a burst of counts. */
export const IDLE_MS = 2000;
/** Longest wait for one count, in ms (loading the tokenizer included), before it is reported as failed. */
const COUNT_TIMEOUT_MS = 60_000;

/**
 * The worker (CommonJS, with no Node flags of the process: `--input-type=module` would make it ESM): loads the tokenizer, then answers each request on `port` (a count, or a limit check
 * when `budget` is set; special-token text such as `<|endoftext|>` counted as plain text), setting
 * the shared flag once its answer is posted.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { port, shared, path } = workerData;
const flag = new Int32Array(shared);
let o200k;
let failed;
try {
  o200k = require(path);
} catch (error) {
  failed = String((error && error.message) || error);
}
const options = { disallowedSpecial: new Set() };
port.on('message', (request) => {
  let reply;
  try {
    if (failed !== undefined) throw new Error(failed);
    reply = { value: request.budget === undefined ? o200k.countTokens(request.text, options) : o200k.isWithinTokenLimit(request.text, request.budget, options) !== false };
  } catch (error) {
    reply = { error: String((error && error.message) || error) };
  }
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});`;

interface Running {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly flag: Int32Array;
  readonly idle: NodeJS.Timeout;
}

let running: Running | undefined;
let started = false;

function start(): Running {
  const path = createRequire(import.meta.url).resolve('gpt-tokenizer/encoding/o200k_base');
  const shared = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { port: port2, shared, path }, transferList: [port2] });
  worker.unref();
  const idle = setTimeout(stop, IDLE_MS);
  idle.unref();
  started = true;
  return { worker, port: port1, flag: new Int32Array(shared), idle };
}

/** Ends the worker; resolves once its thread has exited (at once when none runs). Never rejects. */
function stop(): Promise<void> {
  if (!running) return Promise.resolve();
  clearTimeout(running.idle);
  running.port.close();
  const ended = running.worker.terminate().then(
    () => undefined,
    () => undefined,
  );
  running = undefined;
  return ended;
}

/** Asks the worker; blocks until it answers. @throws Error when it fails or does not answer within {@link COUNT_TIMEOUT_MS}. */
function ask<T>(request: { text: string; budget?: number }): T {
  const worker = (running ??= start());
  worker.idle.refresh();
  Atomics.store(worker.flag, 0, 0);
  worker.port.postMessage(request);
  const waited = Atomics.wait(worker.flag, 0, 0, COUNT_TIMEOUT_MS);
  const reply = receiveMessageOnPort(worker.port)?.message as { value: T } | { error: string } | undefined;
  if (reply === undefined || 'error' in reply) {
    void stop();
    throw new Error(`the o200k tokenizer failed: ${reply?.error ?? (waited === 'timed-out' ? 'no answer' : 'no reply')}`);
  }
  return reply.value;
}

/** o200k_base token count of `text` (special-token markers counted as plain text). */
export function countTokens(text: string): number {
  return ask<number>({ text });
}

/**
 * Whether `text` is at most `budget` o200k_base tokens. Every token stands for at least one UTF-8
 * byte, so a text of at most `budget` bytes fits without loading the tokenizer.
 */
export function withinTokens(text: string, budget: number): boolean {
  if (budget <= 0) return false;
  if (text.length <= budget && Buffer.byteLength(text, 'utf8') <= budget) return true;
  return ask<boolean>({ text, budget });
}

/**
 * Ends the worker now instead of {@link IDLE_MS} after its last count; the next count starts it
 * again. Resolves once its thread has exited (at once when none runs); never rejects. Called once a
 * tools/list has been answered: the manifests that answer needed are rendered by then, and the
 * ~50 MiB it holds are given back before the sentence encoder loads (docs/performance.md, "Memory").
 */
export function releaseTokenizer(): Promise<void> {
  return stop();
}

/** Whether the tokenizer has been started in this process (for the lean-gateway test and bench). */
export function tokenizerLoaded(): boolean {
  return started;
}
