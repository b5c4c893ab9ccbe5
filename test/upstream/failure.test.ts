/**
 * A failed start names the cause under Node's bare "fetch failed", and a remote one its host and
 * port, never the URL's path, query or credentials. Source: docs/robustness.md.
 */
import { describe, expect, it } from 'vitest';
import { argumentValues, causeChain, describeFailure, isUnreachable, secretValues, withoutSecrets, withoutSecretsInTools, withoutSplitSecrets } from '../../src/upstream/failure.js';

/** What Node 20's fetch throws for a refused connection: the reason is only in `cause`. */
const refused = (port: number): TypeError =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: 'ECONNREFUSED' }) });

describe('causeChain', () => {
  it('unwraps error.cause', () => {
    expect(causeChain(refused(9))).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:9');
  });

  it('names the inner errors of an AggregateError (IPv6 and IPv4 both refused)', () => {
    const both = new AggregateError([new Error('connect ECONNREFUSED ::1:3001'), new Error('connect ECONNREFUSED 127.0.0.1:3001')], '');
    expect(causeChain(new TypeError('fetch failed', { cause: both }))).toBe('fetch failed: connect ECONNREFUSED ::1:3001: connect ECONNREFUSED 127.0.0.1:3001');
  });

  it('does not repeat a cause the message already holds (the SDK SSE transport quotes it)', () => {
    const sse = new Error('SSE error: TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:9', { cause: refused(9) });
    expect(causeChain(sse)).toBe('SSE error: TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:9');
  });

  it('stops on a cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(causeChain(a)).toBe('a: b');
  });
});

describe('describeFailure', () => {
  it('prefixes a remote failure with host:port only', () => {
    expect(describeFailure(refused(9), { url: 'http://user:secret@127.0.0.1:9/mcp/KEY?token=t' })).toBe('127.0.0.1:9: fetch failed: connect ECONNREFUSED 127.0.0.1:9');
    expect(describeFailure(new Error('x'), { url: 'https://mcp.example.com/mcp' })).toBe('mcp.example.com:443: x');
  });

  it('never quotes the URL or its credentials, even when the error does (Node fetch on a URL with user:password@)', () => {
    const url = 'http://user:secret@127.0.0.1:9/mcp?token=t';
    const quoted = new Error(`SSE error: Request cannot be constructed from a URL that includes credentials: ${url}`);
    expect(describeFailure(quoted, { url })).toBe('127.0.0.1:9: SSE error: Request cannot be constructed from a URL that includes credentials: the server URL');
    const parsed = new TypeError(`Request cannot be constructed from a URL that includes credentials: ${new URL(url).href}`);
    expect(describeFailure(parsed, { url: 'http://user:secret@127.0.0.1:9/mcp?token=t' })).not.toContain('secret');
    expect(describeFailure(new Error('redirected to https://a:b@other.example/x'), { url })).toBe('127.0.0.1:9: redirected to https://other.example/x');
  });

  it('adds the stderr quote for a stdio failure', () => {
    expect(describeFailure(new Error('MCP error -32000: Connection closed'), { stderrQuote: 'npm error code E404: 404 Not Found' })).toBe(
      'MCP error -32000: Connection closed (stderr: npm error code E404: 404 Not Found)',
    );
  });
});

describe('isUnreachable (the SSE fallback quoted its own failure for a refused port)', () => {
  it('finds a socket error under fetch failed, an AggregateError or a wrapper', () => {
    expect(isUnreachable(refused(9))).toBe(true);
    const both = new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:3001'), { code: 'ECONNREFUSED' })], '');
    expect(isUnreachable(new TypeError('fetch failed', { cause: both }))).toBe(true);
    expect(isUnreachable(new Error('Version negotiation probe failed: fetch failed', { cause: refused(9) }))).toBe(true);
    expect(isUnreachable(new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' }) }))).toBe(true);
  });

  it('is false for an answer the host gave (an HTTP status) and for anything else', () => {
    expect(isUnreachable(new Error('Error POSTing to endpoint (HTTP 405): Method Not Allowed'))).toBe(false);
    expect(isUnreachable(Object.assign(new Error('spawn x ENOENT'), { code: 'ENOENT' }))).toBe(false);
    expect(isUnreachable('fetch failed')).toBe(false);
    // Connected, then reset: the host is there, and an SSE-only server may still answer the fallback.
    expect(isUnreachable(new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }))).toBe(false);
  });
});

describe('credentials a stdio upstream echoes on stderr', () => {
  it('masks the values of credential-named variables of its env and the environment it inherits, longest first', () => {
    const secrets = secretValues({ SEARCH_API_KEY: 'sk-live-7f3a9c1d', MEMORY_FILE_PATH: '/home/me/memory.jsonl', DEBUG_TOKEN: '1' }, { GH_TOKEN: 'ghp_b5b5b5b5b5', DB_PASSWORD: 'sk-live-7f3a9c1d-long' });
    expect(secrets).toEqual(['sk-live-7f3a9c1d-long', 'sk-live-7f3a9c1d', 'ghp_b5b5b5b5b5']);
    expect(withoutSecrets('invalid key sk-live-7f3a9c1d-long, sk-live-7f3a9c1d; no file /home/me/memory.jsonl (token 1)', secrets)).toBe(
      'invalid key <redacted>, <redacted>; no file /home/me/memory.jsonl (token 1)',
    );
  });

  it('masks a credential given as an argument too: --flag value, --flag=value, NAME=value; other arguments stay', () => {
    const args = ['server.js', '--api-key', 'sk-arg-4e4e4e4e', '--token=tok-arg-5f5f5f', 'GITHUB_TOKEN=ghp-arg-6a6a6a', '--port', '8080', '--verbose', './sandbox-folder'];
    expect(argumentValues(args)).toMatchObject({ 'api-key': 'sk-arg-4e4e4e4e', token: 'tok-arg-5f5f5f', GITHUB_TOKEN: 'ghp-arg-6a6a6a', port: '8080', verbose: './sandbox-folder' });
    const secrets = secretValues(undefined, undefined, argumentValues(args));
    expect(secrets.sort()).toEqual(['ghp-arg-6a6a6a', 'sk-arg-4e4e4e4e', 'tok-arg-5f5f5f']);
    expect(withoutSecrets('401: key sk-arg-4e4e4e4e, token tok-arg-5f5f5f, gh ghp-arg-6a6a6a on port 8080 in ./sandbox-folder', secrets)).toBe(
      '401: key <redacted>, token <redacted>, gh <redacted> on port 8080 in ./sandbox-folder',
    );
  });
});

describe('credentials pasted into a tool declaration', () => {
  const key = 'sk-live-4f3e2d1c0b9a8877';
  const tag = String.fromCodePoint(0xe0041);

  it('are masked in every string and key but the name, a split one whole; other hidden characters stay for cleaning and the scanner', () => {
    const tools = [
      {
        name: `use_${key}`,
        description: `Signs with ${key}. Or sk-live-4f3e\u200b2d1c0b9a\u202e8877.${tag}`,
        inputSchema: { type: 'object', properties: { [key]: { type: 'string', default: key, enum: ['a', `x${key}`] } } },
        annotations: { title: `Key ${key}` },
      },
    ];
    expect(withoutSecretsInTools(tools, [key])).toEqual([
      {
        name: `use_${key}`,
        description: `Signs with <redacted>. Or <redacted>.${tag}`,
        inputSchema: { type: 'object', properties: { '<redacted>': { type: 'string', default: '<redacted>', enum: ['a', 'x<redacted>'] } } },
        annotations: { title: 'Key <redacted>' },
      },
    ]);
  });

  it('leave a listing with none the same array, and a clean tool the same object', () => {
    const clean = { name: 'a', description: 'Plain.', inputSchema: { type: 'object' } };
    const tools = [clean];
    expect(withoutSecretsInTools(tools, [key])).toBe(tools);
    expect(withoutSecretsInTools(tools, [])).toBe(tools);
    const mixed = withoutSecretsInTools([clean, { ...clean, name: 'b', description: `k ${key}` }], [key]);
    expect(mixed[0]).toBe(clean);
    expect(mixed[1]!.description).toBe('k <redacted>');
  });

  it('are masked in instructions kept for the catalogue cache, a split one whole, other hidden characters left', () => {
    expect(withoutSplitSecrets(`Sign with sk-live-4f3e\u200b2d1c0b9a\u202e8877 or ${key}.${tag}`, [key])).toBe(`Sign with <redacted> or <redacted>.${tag}`);
    expect(withoutSplitSecrets('Plain.', [key])).toBe('Plain.');
    expect(withoutSplitSecrets(key, [])).toBe(key);
  });

  it('escape a credential’s regular-expression characters', () => {
    const odd = 'p4ss.w*rd+(x)[1]';
    const tools = [{ name: 'a', description: `Use ${odd} or p4ssXw*rd+(x)[1]`, inputSchema: { type: 'object' } }];
    expect(withoutSecretsInTools(tools, [odd])[0]!.description).toBe('Use <redacted> or p4ssXw*rd+(x)[1]');
  });
});
