/** The relay's plain-JavaScript SHA-256 gives node:crypto's digest, at every padding boundary and for any UTF-8. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/sha256.js';

const reference = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('sha256Hex', () => {
  it('gives the FIPS 180-4 examples', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('equals node:crypto for every length around the block and padding edges, and for non-ASCII text', () => {
    for (let length = 0; length <= 200; length += 1) expect(sha256Hex('x'.repeat(length)), `length ${length}`).toBe(reference('x'.repeat(length)));
    for (const text of ['é→§—', '😀 emoji', 'a\u0000b', '\ud800 lone surrogate', JSON.stringify({ configPath: '/home/u/.config/toolshelf/servers.json', serveArgs: ['--log-level', 'info'], version: '0.1.0', variables: { HOME: null }, uid: 1000 }), 'y'.repeat(100_000)]) {
      expect(sha256Hex(text)).toBe(reference(text));
    }
  });
});
