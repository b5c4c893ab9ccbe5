/**
 * The one place a process decides whether it runs the sentence encoder, shared by the serving gateway
 * and `toolshelf search`, so the command ranks as tool_search does (docs/search.md, docs/cli.md).
 */
import type { Logger } from '../../trace/log.js';
import { MODEL_ID, workerEmbedder } from './embedder.js';
import { SemanticEngine } from './engine.js';
import { vectorCacheFile } from './vectorCache.js';

/**
 * Environment variable that, set to `0`, keeps the sentence encoder out of this process whatever the
 * config says: tool_search ranks by BM25 alone, as with `discovery.semantic: false` (docs/search.md).
 * The test suite sets it, so only the tests of semantic ranking pay for the model.
 */
export const SEMANTIC_ENV = 'TOOLSHELF_SEMANTIC';

/**
 * The encoder for this process, its vectors cached under `stateDir` when given; undefined when
 * {@link SEMANTIC_ENV} is `0`. Its worker and model load only when it is started or first searched.
 * `queryTimeoutMs` overrides how long a search waits for its query's vector (engine.ts
 * QUERY_TIMEOUT_MS): a one-shot command whose tools all come from the cache waits for the model too.
 */
export function processSemanticEngine(env: Readonly<Record<string, string | undefined>>, logger: Logger, stateDir: string | undefined, queryTimeoutMs?: number): SemanticEngine | undefined {
  if (env[SEMANTIC_ENV] === '0') return undefined;
  return new SemanticEngine({ embedder: workerEmbedder(), logger, ...(stateDir ? { cacheFile: vectorCacheFile(stateDir, MODEL_ID) } : {}), ...(queryTimeoutMs !== undefined ? { queryTimeoutMs } : {}) });
}
