/** The relay's hello line (share/hello.ts): read whole, split from the bytes after it, never mistaken for a client's message. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { helloLine, MAX_HELLO_BYTES, parseHello, readHello } from '../../src/share/hello.js';

describe('relay hello', () => {
  it('round-trips a view and leaves the rest', () => {
    const parsed = parseHello(Buffer.from(`${helloLine({ view: 'coding' })}{"jsonrpc":"2.0"}\n`));
    expect(parsed).not.toBe('more');
    if (parsed === 'more') return;
    expect(parsed.hello).toEqual({ view: 'coding' });
    expect(parsed.rest.toString()).toBe('{"jsonrpc":"2.0"}\n');
  });

  it('waits for a hello cut short, and passes a client message through whole', () => {
    const line = helloLine({ view: 'coding' });
    expect(parseHello(Buffer.from(line.slice(0, 5)))).toBe('more');
    expect(parseHello(Buffer.from(line.slice(0, 25)))).toBe('more');
    const message = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"initialize"}\n');
    expect(parseHello(message)).toEqual({ hello: undefined, rest: message });
    const fake = Buffer.from('{"toolshelf/relay":1}\n');
    expect(parseHello(fake)).toEqual({ hello: undefined, rest: fake });
    const long = Buffer.from(`{"toolshelf/relay":{"view":"${'a'.repeat(MAX_HELLO_BYTES)}`);
    expect(parseHello(long)).toEqual({ hello: undefined, rest: long });
  });

  it('reads a hello that arrives in pieces and leaves the next bytes on the stream', async () => {
    const input = new PassThrough();
    const reading = readHello(input);
    const line = helloLine({ view: 'chat' });
    input.write(line.slice(0, 10));
    input.write(`${line.slice(10)}{"a":1}\n`);
    expect(await reading).toEqual({ hello: { view: 'chat' }, ended: false });
    input.end();
    const rest: Buffer[] = [];
    for await (const chunk of input) rest.push(chunk as Buffer);
    expect(Buffer.concat(rest).toString()).toBe('{"a":1}\n');
  });
});
