/**
 * Tool vectors on disk, keyed by a hash of the model's identity and the embedded text, so a restart
 * (or another catalogue holding the same tool) never embeds a text twice and a new model never reads
 * an old model's vectors. One JSON file in the state folder (`vectors/<model hash>.json`), written
 * atomically and private (lib/stateDir.ts). A missing or unreadable file is an empty cache.
 * Source: docs/search.md ("Semantic ranking": cache).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readPrivateFile, writePrivateFile } from '../../lib/stateDir.js';

/** Most vectors kept on disk (≈ 2.7 KiB each as base64): the oldest beyond it are dropped on write. */
export const MAX_CACHED_VECTORS = 20_000;

/** The cache key of `text` embedded by `model`: 32 hex digits of SHA-256. Pure. */
export function vectorKey(model: string, text: string): string {
  return createHash('sha256').update(`${model}\u0000${text}`).digest('hex').slice(0, 32);
}

/** The cache file for `model` under the state folder `stateDir`. Pure. */
export function vectorCacheFile(stateDir: string, model: string): string {
  return join(stateDir, 'vectors', `${createHash('sha256').update(model).digest('hex').slice(0, 16)}.json`);
}

/** Reads the vectors stored at `file` (key → vector); empty when the file is missing, malformed, not the user's alone or not a regular file (lib/stateDir.ts readPrivateFile). */
export function readVectors(file: string): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  let parsed: unknown;
  try {
    const text = readPrivateFile(file);
    if (text === undefined) return vectors;
    parsed = JSON.parse(text);
  } catch {
    return vectors;
  }
  const stored = (parsed as { vectors?: unknown } | null)?.vectors;
  if (typeof stored !== 'object' || stored === null) return vectors;
  for (const [key, value] of Object.entries(stored)) {
    if (typeof value !== 'string') continue;
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) continue;
    vectors.set(key, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
  }
  return vectors;
}

/**
 * Writes `vectors` to `file` (the newest {@link MAX_CACHED_VECTORS}, in the map's insertion order).
 * @throws the file system's error; the caller logs it and goes on without a cache.
 */
export function writeVectors(file: string, vectors: ReadonlyMap<string, Float32Array>): void {
  const entries = [...vectors].slice(-MAX_CACHED_VECTORS);
  const stored: Record<string, string> = {};
  for (const [key, vector] of entries) stored[key] = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
  writePrivateFile(file, JSON.stringify({ vectors: stored }));
}
