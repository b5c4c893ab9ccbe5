import { describe, expect, it } from 'vitest';
import { parseConfig, withLineAndColumn } from '../../src/config/load.js';
import { applyDefaults, schemaOptionsFor, type RawConfig } from '../../src/config/defaults.js';
import { assignNames } from '../../src/catalog/naming.js';
import { startTimeoutFromEnv } from '../../src/upstream/pool.js';
import { STARTUP_WAIT_MS, startupWaitMs } from '../../src/shelf/live.js';

const ok = (text: unknown, env: Record<string, string> = {}) => {
  const result = parseConfig(JSON.stringify(text), env, '/base');
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
};

describe('parseConfig', () => {
  it('applies the documented defaults', () => {
    const config = ok({ mcpServers: { a: { command: 'node' } } });
    expect(config.exposure).toBe('deferred');
    expect(config.discovery).toMatchObject({ enabled: true, manifestTokenBudget: 4000, defaultLimit: 5, maxLimit: 20, rankMode: 'bm25' });
    expect(config.schemas.compaction).toEqual({ maxDescriptionBytes: 1000, maxSchemaBytes: 5000 });
    expect(config.schemas.prepare).toEqual({ resolveRefs: false, stripKeywords: false, strict: false });
    expect(config.naming).toEqual({ separator: '__', maxLength: 48 });
    expect(config.bridge).toEqual({ callTool: 'auto', confirm: 'destructive', unaskable: 'refuse' });
    expect(config.discovery).toMatchObject({ mode: 'auto', alwaysLoad: true });
    expect(config.baseDir).toBe('/base');
  });

  it('accepts a pasted Claude Desktop entry and other clients\' "type" key; drops disabled servers', () => {
    const config = ok({
      mcpServers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { A: 'b' } },
        remote: { type: 'sse', url: 'https://example.com/sse' },
        off: { command: 'x', disabled: true },
      },
    });
    expect(Object.keys(config.mcpServers)).toEqual(['fs', 'remote']);
    expect(config.mcpServers.remote).toMatchObject({ transport: 'sse' });
  });

  it('merges per-server schema settings over the global ones', () => {
    const config = ok({
      mcpServers: { a: { command: 'x', schemas: { compaction: { maxSchemaBytes: 2000 }, prepare: { strict: true } } }, b: { command: 'y' } },
      schemas: { compaction: false, prepare: { resolveRefs: true } },
    });
    expect(schemaOptionsFor(config, 'a')).toEqual({
      compaction: { maxDescriptionBytes: 1000, maxSchemaBytes: 2000 },
      prepare: { resolveRefs: true, stripKeywords: false, strict: true },
    });
    expect(schemaOptionsFor(config, 'b').compaction).toBe(false);
  });

  it('reads a file saved as "UTF-8 with BOM" (the exact bytes a Windows editor writes)', () => {
    const text = `\ufeff${JSON.stringify({ mcpServers: { a: { command: 'node' } } })}`;
    const result = parseConfig(text, {}, '/base');
    expect(result.ok && Object.keys(result.value.mcpServers)).toEqual(['a']);
    const inside = parseConfig(`{"mcpServers":\ufeff{}}`, {}, '/base');
    expect(!inside.ok && inside.error[0]?.message).toMatch(/^not valid JSON/);
  });

  it('says on which line and column the JSON breaks, BOM or not (Node 20 gives only the offset)', () => {
    const text = '{\n  "mcpServers": {\n    files: {}\n  }\n}';
    const plain = parseConfig(text, {}, '/');
    expect(!plain.ok && plain.error[0]?.message).toMatch(/^not valid JSON: .*at position 24 \(line 3, column 5\)$/);
    const bom = parseConfig(`\ufeff${text}`, {}, '/');
    expect(!bom.ok && bom.error[0]?.message).toMatch(/\(line 3, column 5\)$/);
    expect(withLineAndColumn('Unexpected end of JSON input', '{')).toBe('Unexpected end of JSON input');
    expect(withLineAndColumn('Unexpected token in JSON at position 3 (line 1 column 4)', 'abcd')).toBe('Unexpected token in JSON at position 3 (line 1 column 4)');
  });

  it('returns every problem at once, sorted by path', () => {
    const result = parseConfig(JSON.stringify({ mcpServers: { a: {} }, bridge: { callTool: 'maybe' }, x: 1 }), {}, '/');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.map((p) => p.path)).toEqual(['/bridge/callTool', '/mcpServers/a', '/x']);
  });

  it('refuses a config without mcpServers and a non-object root', () => {
    const missing = parseConfig('{}', {}, '/');
    expect(!missing.ok && missing.error[0]).toEqual({ path: '/mcpServers', message: 'is required' });
    const array = parseConfig('[]', {}, '/');
    expect(array.ok).toBe(false);
  });
});

describe('discovery.mode and discovery.alwaysLoad', () => {
  it('accepts own, client and false', () => {
    expect(ok({ mcpServers: {}, discovery: { mode: 'client', alwaysLoad: false } }).discovery).toMatchObject({ mode: 'client', alwaysLoad: false, enabled: true });
    expect(ok({ mcpServers: {}, discovery: { mode: 'own' } }).discovery).toMatchObject({ mode: 'own', alwaysLoad: true });
  });

  it('refuses other values by JSON path', () => {
    const result = parseConfig(JSON.stringify({ mcpServers: {}, discovery: { mode: 'claude', alwaysLoad: 'yes' } }), {}, '/');
    expect(!result.ok && result.error).toEqual([
      { path: '/discovery/alwaysLoad', message: 'must be boolean' },
      { path: '/discovery/mode', message: 'must be one of "auto", "own", "client"' },
    ]);
  });
});

describe('cross-field checks', () => {
  it('refuses a defaultLimit above maxLimit', () => {
    const result = parseConfig(JSON.stringify({ mcpServers: {}, discovery: { defaultLimit: 30, maxLimit: 20 } }), {}, '/');
    expect(!result.ok && result.error).toEqual([{ path: '/discovery/defaultLimit', message: 'must not exceed maxLimit (20)' }]);
  });
});

/** Problems of a config given as JSON text (raw text keeps keys like "__proto__" as written). */
const problemsOf = (text: string, env: Record<string, string> = {}) => {
  const result = parseConfig(text, env, '/');
  return result.ok ? [] : result.error;
};

describe('${VAR} in validated fields: interpolated first, validated after', () => {
  const text = '{"mcpServers":{"a":{"url":"${BREAKER_URL}","exposure":"${BREAKER_EXPO}"}}}';

  it('accepts "url": "${BREAKER_URL}" and "exposure": "${BREAKER_EXPO}" when both are set', () => {
    const result = parseConfig(text, { BREAKER_URL: 'http://127.0.0.1:3001/mcp', BREAKER_EXPO: 'direct' }, '/');
    expect(result.ok && result.value.mcpServers.a).toEqual({ url: 'http://127.0.0.1:3001/mcp', exposure: 'direct' });
  });

  it('reports only the missing variable at a path, not also the schema complaint there', () => {
    expect(problemsOf(text)).toEqual([
      { path: '/mcpServers/a/exposure', message: 'environment variable ${BREAKER_EXPO} is not set' },
      { path: '/mcpServers/a/url', message: 'environment variable ${BREAKER_URL} is not set' },
    ]);
  });

  it('checks the expanded value and quotes the string as written', () => {
    expect(problemsOf(text, { BREAKER_URL: 'ftp://example', BREAKER_EXPO: 'sometimes' })).toEqual([
      { path: '/mcpServers/a/exposure', message: 'must be one of "direct", "deferred", "hidden" (expanded from "${BREAKER_EXPO}")' },
      { path: '/mcpServers/a/url', message: 'must match pattern "^https?://" (expanded from "${BREAKER_URL}")' },
    ]);
  });

  it('reports a malformed placeholder once at its path, with no schema complaint there', () => {
    expect(problemsOf('{"mcpServers":{"a":{"url":"${BREAKER_URL"}}}')).toEqual([
      { path: '/mcpServers/a/url', message: 'malformed placeholder "${BREAKER_URL": no closing "}" (write $${ for a literal ${)' },
    ]);
  });
});

describe('strings that expand to invalid values (an empty command)', () => {
  it('refuses command "${X:-}" at load instead of failing at spawn', () => {
    expect(problemsOf('{"mcpServers":{"a":{"command":"${X:-}"}}}')).toEqual([
      { path: '/mcpServers/a/command', message: 'must NOT have fewer than 1 characters (expanded from "${X:-}")' },
    ]);
  });

  it('refuses a url that expands to something other than http(s)', () => {
    expect(problemsOf('{"mcpServers":{"a":{"url":"${U:-file:///etc/passwd}"}}}')).toEqual([
      { path: '/mcpServers/a/url', message: 'must match pattern "^https?://" (expanded from "${U:-file:///etc/passwd}")' },
    ]);
  });
});

describe('keys that name object internals', () => {
  it('refuses a "__proto__" server key instead of silently dropping the server', () => {
    expect(problemsOf('{"mcpServers":{"__proto__":{"command":"node","args":["server.js"]}}}')).toEqual([
      { path: '/mcpServers/__proto__', message: 'is a reserved name' },
    ]);
  });

  it.each(['constructor', 'prototype'])('refuses "%s" as a server key and as a tool-rule key', (key) => {
    expect(problemsOf(`{"mcpServers":{"${key}":{"command":"x"},"b":{"command":"y","tools":{"${key}":{"exposure":"hidden"}}}}}`)).toEqual([
      { path: `/mcpServers/b/tools/${key}`, message: 'is a reserved name' },
      { path: `/mcpServers/${key}`, message: 'is a reserved name' },
    ]);
  });

  it('refuses "__proto__" as a tool-rule key', () => {
    expect(problemsOf('{"mcpServers":{"a":{"command":"x","tools":{"__proto__":{"exposure":"direct"}}}}}')).toEqual([
      { path: '/mcpServers/a/tools/__proto__', message: 'is a reserved name' },
    ]);
  });

  it('keeps other Object.prototype names such as "toString" working as server and tool-rule keys', () => {
    const config = ok(JSON.parse('{"mcpServers":{"toString":{"command":"x","tools":{"toString":{"exposure":"direct"},"hasOwnProperty":{"exposure":"hidden"}}}}}'));
    expect(Object.keys(config.mcpServers)).toEqual(['toString']);
    expect(Object.keys(config.mcpServers.toString?.tools ?? {})).toEqual(['toString', 'hasOwnProperty']);
    expect(config.mcpServers.toString?.tools?.toString).toEqual({ exposure: 'direct' });
  });

  it('reports an empty server key at its own path', () => {
    expect(problemsOf('{"mcpServers":{"":{"command":"x"}}}')).toEqual([
      { path: '/mcpServers/', message: 'as a key, must NOT have fewer than 1 characters' },
    ]);
  });

  it('applyDefaults sets server keys as own properties, never through the __proto__ setter', () => {
    const raw = JSON.parse('{"mcpServers":{"__proto__":{"command":"node"},"b":{"command":"x","type":"stdio"}}}') as RawConfig;
    const config = applyDefaults(raw, '/');
    expect(Object.getPrototypeOf(config.mcpServers)).toBe(Object.prototype);
    expect(Object.keys(config.mcpServers)).toEqual(['__proto__', 'b']);
    expect(Object.getOwnPropertyDescriptor(config.mcpServers, '__proto__')?.value).toEqual({ command: 'node' });
  });
});

describe('limits that must agree', () => {
  it('naming bounds leave room for the separator and hash: separator ≤ 4 and maxLength ≥ 16', () => {
    expect(problemsOf('{"mcpServers":{},"naming":{"separator":"abcde","maxLength":15}}')).toEqual([
      { path: '/naming/maxLength', message: 'must be >= 16' },
      { path: '/naming/separator', message: 'must NOT have more than 4 characters' },
    ]);
    const naming = ok({ mcpServers: {}, naming: { separator: 'abcd', maxLength: 16 } }).naming;
    const { names } = assignNames(
      [
        { server: 'a-very-long-server-key', tool: 'a_very_long_tool_name', prefix: true },
        { server: 'a-very-long-server-key', tool: 'a_very_long_tool_name_2', prefix: true },
      ],
      naming,
    );
    expect(names.every((name) => name.length <= 16)).toBe(true);
    expect(new Set(names).size).toBe(2);
  });

  it('refuses unknown keys and bad values in exposure rules with their paths', () => {
    expect(problemsOf('{"mcpServers":{"a":{"command":"x","tools":{"read_*":{"exposure":"direct","visible":true},"w":{"exposure":"sometimes"},"z":"hidden"}}}}')).toEqual([
      { path: '/mcpServers/a/tools/read_*/visible', message: 'is not a known key' },
      { path: '/mcpServers/a/tools/w/exposure', message: 'must be one of "direct", "deferred", "hidden"' },
      { path: '/mcpServers/a/tools/z', message: 'must be object' },
    ]);
  });
});

describe('a misspelt key', () => {
  it('is refused with the known key it is closest to, at every level; a key like none gets no guess', () => {
    expect(problemsOf('{"mcpServers":{"a":{"command":"x","lazzy":true,"idleStopMS":5}},"exposur":"direct","colour":"red"}')).toEqual([
      { path: '/colour', message: 'is not a known key' },
      { path: '/exposur', message: 'is not a known key; did you mean "exposure"?' },
      { path: '/mcpServers/a/idleStopMS', message: 'is not a known key; did you mean "idleStopMs"?' },
      { path: '/mcpServers/a/lazzy', message: 'is not a known key; did you mean "lazy"?' },
    ]);
  });

  it('suggests only a key that applies to the server\'s kind: no "headers" for a stdio server, no "args" or "env" for a remote one', () => {
    expect(problemsOf('{"mcpServers":{"s":{"command":"x","hedaers":{},"auht":{},"arg":[]},"r":{"url":"https://h/mcp","ars":[],"envv":{},"hedaers":{}}}}')).toEqual([
      { path: '/mcpServers/r/ars', message: 'is not a known key' },
      { path: '/mcpServers/r/envv', message: 'is not a known key' },
      { path: '/mcpServers/r/hedaers', message: 'is not a known key; did you mean "headers"?' },
      { path: '/mcpServers/s/arg', message: 'is not a known key; did you mean "args"?' },
      { path: '/mcpServers/s/auht', message: 'is not a known key' },
      { path: '/mcpServers/s/hedaers', message: 'is not a known key' },
    ]);
  });
});

describe('the bridge confirmation keys', () => {
  it('accept their values and refuse others by JSON path', () => {
    expect(ok({ mcpServers: { a: { command: 'node' } }, bridge: { confirm: 'open-world', unaskable: 'run' } }).bridge).toEqual({ callTool: 'auto', confirm: 'open-world', unaskable: 'run' });
    const result = parseConfig(JSON.stringify({ mcpServers: { a: { command: 'node' } }, bridge: { confirm: 'always', unaskable: 'allow' } }), {}, '/');
    if (result.ok) throw new Error('expected problems');
    expect(result.error.map((p) => p.path)).toEqual(['/bridge/confirm', '/bridge/unaskable']);
  });
});

describe('a misspelt value', () => {
  it('is refused with the allowed values and the one it is closest to; a value like none gets no guess', () => {
    expect(problemsOf('{"mcpServers":{"a":{"command":"x","exposure":"defered","tools":{"w":{"exposure":"sometimes"}}}},"bridge":{"callTool":"nevr"}}')).toEqual([
      { path: '/bridge/callTool', message: 'must be one of "auto", "always", "never"; did you mean "never"?' },
      { path: '/mcpServers/a/exposure', message: 'must be one of "direct", "deferred", "hidden"; did you mean "deferred"?' },
      { path: '/mcpServers/a/tools/w/exposure', message: 'must be one of "direct", "deferred", "hidden"' },
    ]);
  });
});

describe('a value that fits none of a setting\'s forms (two messages at one path)', () => {
  it('gets one message, with the form it is closest to; a mistake inside the object form keeps its own path', () => {
    expect(problemsOf('{"mcpServers":{"a":{"command":"x"}},"schemas":{"compaction":"third party"}}')).toEqual([
      { path: '/schemas/compaction', message: 'must be "third-party", false, or an object of byte budgets; did you mean "third-party"?' },
    ]);
    expect(problemsOf('{"mcpServers":{"a":{"command":"x"}},"schemas":{"compaction":7}}')).toEqual([
      { path: '/schemas/compaction', message: 'must be "third-party", false, or an object of byte budgets' },
    ]);
    expect(problemsOf('{"mcpServers":{"a":{"command":"x"}},"schemas":{"compaction":{"maxSchemaBytes":"big"}}}').map((p) => p.path)).toContain('/schemas/compaction/maxSchemaBytes');
  });

  it('an object with a misspelt key is told the key, not only the forms it could take (the key was never named)', () => {
    expect(problemsOf('{"mcpServers":{"a":{"command":"x"}},"schemas":{"compaction":{"maxDescriptonBytes":500}}}')).toEqual([
      { path: '/schemas/compaction/maxDescriptonBytes', message: 'is not a known key; did you mean "maxDescriptionBytes"?' },
    ]);
    expect(problemsOf('{"mcpServers":{"a":{"command":"x","schemas":{"compaction":{"maxSchemaBytes":5}}}}}')).toEqual([
      { path: '/mcpServers/a/schemas/compaction/maxSchemaBytes', message: 'must be >= 64' },
    ]);
    for (const value of ['true', 'null', '[]', '"3rd-party"']) {
      expect(problemsOf(`{"mcpServers":{"a":{"command":"x"}},"schemas":{"compaction":${value}}}`).map((p) => p.path), value).toEqual(['/schemas/compaction']);
    }
  });
});

describe('a disabled server', () => {
  // The exact input: a remote entry switched off while its token is not set.
  const text = '{"mcpServers":{"remote":{"url":"https://${REMOTE_HOST}/mcp","headers":{"Authorization":"Bearer ${REMOTE_TOKEN}"},"disabled":true},"local":{"command":"node","env":{"K":"${LOCAL_KEY}"}}}}';

  it('does not require its ${VAR}s', () => {
    const result = parseConfig(text, { LOCAL_KEY: 'k' }, '/');
    expect(result.ok).toBe(true);
    expect(result.ok && Object.keys(result.value.mcpServers)).toEqual(['local']);
  });

  it('an enabled server still names each missing variable', () => {
    expect(problemsOf(text, {})).toEqual([{ path: '/mcpServers/local/env/K', message: 'environment variable ${LOCAL_KEY} is not set' }]);
    expect(problemsOf(text.replace('"disabled":true', '"disabled":false'), { LOCAL_KEY: 'k' })).toEqual([
      { path: '/mcpServers/remote/headers/Authorization', message: 'environment variable ${REMOTE_TOKEN} is not set' },
      { path: '/mcpServers/remote/url', message: 'environment variable ${REMOTE_HOST} is not set' },
    ]);
  });
});

describe('settings in ms stay within what a Node.js timer can wait', () => {
  const longest = 2_147_483_647;
  const at = (ms: number): string =>
    JSON.stringify({
      idleStopMs: ms,
      share: { idleExitMs: ms },
      discovery: { rankerTimeoutMs: ms },
      mcpServers: {
        s: { command: 'node', timeoutMs: ms, maxTotalMs: ms, startTimeoutMs: ms, idleStopMs: ms },
        r: { url: 'https://example.com/mcp', auth: { signInTimeoutMs: ms } },
      },
    });

  it('"timeoutMs": 3000000000 and every other ms setting over 2^31 - 1 is refused at its path (a direct call re-armed its timer every ms; SDK calls timed out at once)', () => {
    const message = `must be <= ${longest} (about 24.8 days, the longest timer Node.js can set; a longer one fires at once)`;
    expect(problemsOf(at(3_000_000_000))).toEqual(
      ['/discovery/rankerTimeoutMs', '/idleStopMs', '/mcpServers/r/auth/signInTimeoutMs', '/mcpServers/s/idleStopMs', '/mcpServers/s/maxTotalMs', '/mcpServers/s/startTimeoutMs', '/mcpServers/s/timeoutMs', '/share/idleExitMs'].map((path) => ({ path, message })),
    );
    expect(problemsOf(at(longest))).toEqual([]);
  });

  it('TOOLSHELF_START_TIMEOUT_MS and TOOLSHELF_STARTUP_WAIT_MS over 2^31 - 1 are ignored, as any value that is not a usable timeout', () => {
    expect(startTimeoutFromEnv({ TOOLSHELF_START_TIMEOUT_MS: '3000000000' })).toBeUndefined();
    expect(startTimeoutFromEnv({ TOOLSHELF_START_TIMEOUT_MS: String(longest) })).toBe(longest);
    expect(startupWaitMs({ TOOLSHELF_STARTUP_WAIT_MS: '3000000000' })).toBe(STARTUP_WAIT_MS);
    expect(startupWaitMs({ TOOLSHELF_STARTUP_WAIT_MS: String(longest) })).toBe(longest);
  });
});
