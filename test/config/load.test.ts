import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { schemaOptionsFor } from '../../src/config/defaults.js';

const ok = (text: unknown, env: Record<string, string> = {}) => {
  const result = parseConfig(JSON.stringify(text), env, '/base');
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
};

describe('parseConfig (DESIGN §12)', () => {
  it('applies the documented defaults', () => {
    const config = ok({ mcpServers: { a: { command: 'node' } } });
    expect(config.exposure).toBe('deferred');
    expect(config.discovery).toMatchObject({ enabled: true, manifestTokenBudget: 4000, defaultLimit: 5, maxLimit: 20, rankMode: 'bm25' });
    expect(config.schemas.compaction).toEqual({ maxDescriptionBytes: 1000, maxSchemaBytes: 5000 });
    expect(config.schemas.prepare).toEqual({ resolveRefs: false, stripKeywords: false, strict: false });
    expect(config.naming).toEqual({ separator: '__', maxLength: 48 });
    expect(config.bridge.callTool).toBe('auto');
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

  it('merges per-server schema settings over the global ones (§7)', () => {
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

describe('cross-field checks', () => {
  it('refuses a defaultLimit above maxLimit (DESIGN §5)', () => {
    const result = parseConfig(JSON.stringify({ mcpServers: {}, discovery: { defaultLimit: 30, maxLimit: 20 } }), {}, '/');
    expect(!result.ok && result.error).toEqual([{ path: '/discovery/defaultLimit', message: 'must not exceed maxLimit (20)' }]);
  });
});
