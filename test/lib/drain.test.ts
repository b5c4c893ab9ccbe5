/** nextDrain (lib/drain.ts): writers behind a full stream share one wait (O(n²) listeners in a flood). */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { nextDrain } from '../../src/lib/drain.js';

/** A stream that takes nothing until `release()`, so every write after the first finds it full. */
function heldStream(): { stream: Writable; release: () => void; fail: (error: Error) => void } {
  const held: (() => void)[] = [];
  const stream = new Writable({ highWaterMark: 16, write: (_chunk, _encoding, done) => void held.push(() => done()) });
  stream.on('error', () => undefined);
  const release = (): void => {
    for (let next = held.shift(); next; next = held.shift()) next();
    // Writes queued behind the first come to `write` one by one as each finishes.
    if (stream.writableLength > 0) setImmediate(release);
  };
  return { stream, release, fail: (error) => stream.destroy(error) };
}

describe('nextDrain', () => {
  it('10,000 writers behind a full stream add one drain and one error listener, and all resolve at the drain', async () => {
    const { stream, release } = heldStream();
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 10_000; i++) if (!stream.write(`line ${i}\n`)) waits.push(nextDrain(stream));
    expect(waits.length).toBeGreaterThan(9_900);
    expect(stream.listenerCount('drain')).toBe(1);
    expect(stream.listenerCount('error')).toBe(2);
    release();
    await Promise.all(waits);
    expect(stream.listenerCount('drain')).toBe(0);
    expect(stream.listenerCount('error')).toBe(1);
    // A later full pipe gets a fresh wait.
    stream.write('x'.repeat(32));
    const again = nextDrain(stream);
    release();
    await again;
  });

  it('an error on the stream rejects every waiting writer with it', async () => {
    const { stream, fail } = heldStream();
    stream.write('x'.repeat(32));
    const waits = [nextDrain(stream), nextDrain(stream)];
    fail(new Error('EPIPE'));
    for (const wait of waits) await expect(wait).rejects.toThrow('EPIPE');
  });
});
