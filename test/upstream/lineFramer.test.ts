import { describe, expect, it } from 'vitest';
import { LineFramer, OVERSIZE_EDGE_BYTES, type OversizedLine } from '../../src/upstream/lineFramer.js';

function framer(maxBytes: number): { push: (text: string | Buffer) => void; end: () => void; lines: string[]; dropped: OversizedLine[] } {
  const lines: string[] = [];
  const dropped: OversizedLine[] = [];
  const f = new LineFramer(maxBytes, (l) => lines.push(l), (d) => dropped.push(d));
  return { push: (text) => f.push(Buffer.isBuffer(text) ? text : Buffer.from(text)), end: () => f.end(), lines, dropped };
}

describe('LineFramer', () => {
  it('splits lines across chunks and strips a trailing \\r', () => {
    const f = framer(100);
    f.push('{"a":');
    f.push('1}\r\n{"b"');
    f.push(':2}\n\n');
    expect(f.lines).toEqual(['{"a":1}', '{"b":2}', '']);
  });

  it('drops a line over the limit whole and keeps the lines around it', () => {
    const f = framer(10);
    f.push('short\n0123456789AB');
    f.push('CDEF\nafter\n');
    expect(f.lines).toEqual(['short', 'after']);
    expect(f.dropped).toEqual([{ bytes: 16, head: '0123456789ABCDEF', tail: '0123456789ABCDEF' }]);
  });

  it('accepts a line of exactly the limit', () => {
    const f = framer(5);
    f.push('12345\n');
    expect(f.lines).toEqual(['12345']);
    expect(f.dropped).toEqual([]);
  });

  it('reads a chunk that is one whole line as the general path does: \\r stripped, empty lines kept, the limit counting the \\r', () => {
    const f = framer(6);
    for (const chunk of ['one\n', 'two\r\n', '\n', '\r\n', '12345\r\n', '123456\r\n', '1234567\n', 'after\n']) f.push(chunk);
    expect(f.lines).toEqual(['one', 'two', '', '', '12345', 'after']);
    expect(f.dropped.map((d) => d.bytes)).toEqual([7, 7]);
  });

  it('reports the size and both ends of a huge dropped line while holding only the edges', () => {
    const f = framer(1000);
    f.push('{"jsonrpc":"2.0","id":7,"result":"');
    for (let i = 0; i < 100; i++) f.push('x'.repeat(10_000));
    f.push('"}\n{"ok":true}\n');
    expect(f.dropped).toHaveLength(1);
    const [line] = f.dropped;
    expect(line?.bytes).toBe(34 + 1_000_000 + 2);
    expect(line?.head.startsWith('{"jsonrpc":"2.0","id":7,"result":"xxx')).toBe(true);
    expect(line?.head).toHaveLength(OVERSIZE_EDGE_BYTES);
    expect(line?.tail.endsWith('xx"}')).toBe(true);
    expect(line?.tail).toHaveLength(OVERSIZE_EDGE_BYTES);
    expect(f.lines).toEqual(['{"ok":true}']);
  });

  it('completes a last line without a newline at end of stream, kept or dropped', () => {
    const kept = framer(100);
    kept.push('last words');
    kept.end();
    expect(kept.lines).toEqual(['last words']);
    const cut = framer(4);
    cut.push('too long');
    cut.end();
    expect(cut.dropped.map((d) => d.bytes)).toEqual([8]);
    const empty = framer(4);
    empty.end();
    expect(empty.lines).toEqual([]);
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const f = framer(100);
    const bytes = Buffer.from('héllo 🌍\n');
    f.push(bytes.subarray(0, 2));
    f.push(bytes.subarray(2, 9));
    f.push(bytes.subarray(9));
    expect(f.lines).toEqual(['héllo 🌍']);
  });
});
