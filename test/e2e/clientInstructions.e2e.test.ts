/**
 * The instructions a client gets name only the tools its list has: a client whose list has no
 * tool_search (discovery in `client` mode: Codex under `auto`) is not told to use it, and a modern
 * client without call_tool is not told to run tools with it (Codex was told to search
 * with a tool_search it did not have, and got "Unknown tool"). Upstreams' own instructions are kept
 * for every client. Both eras' SDK Clients over Streamable HTTP, in front of server-everything (it
 * has instructions of its own) and server-memory.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serverEntry, startHttp, tempDir, writeConfig, type HttpGateway } from '../helpers/gateway.js';

const servers = {
  memory: { command: 'node', args: [serverEntry('memory')], env: { MEMORY_FILE_PATH: join(tempDir(), 'memory.jsonl') } },
  everything: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
};

/** An HTTP gateway serving `config` for the enclosing describe block: started before its tests, stopped after. */
function gatewayFor(config: Record<string, unknown>): () => HttpGateway {
  let gateway: HttpGateway | undefined;
  beforeAll(async () => {
    gateway = await startHttp(writeConfig(config));
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
  });
  return () => gateway!;
}

/** The instructions and tool names a client named `name` of `era` gets from `gateway`. */
async function seen(gateway: HttpGateway, name: string, era: 'legacy' | 'modern'): Promise<{ instructions: string | undefined; tools: string[] }> {
  const client = new Client({ name, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  try {
    return { instructions: client.getInstructions(), tools: (await client.listTools()).tools.map((t) => t.name) };
  } finally {
    await client.close();
  }
}

describe('instructions follow each client\'s tool list', () => {
  const gateway = gatewayFor({ mcpServers: servers });

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}: a client with tool_search is told of it; Codex (client mode, no tool_search) is not, and keeps the upstreams' sections`, async () => {
      const own = await seen(gateway(), 'some-client', era);
      expect(own.tools).toContain('tool_search');
      expect(own.instructions).toMatch(/^Tools not in your list are on the shelf: tool_search/);
      expect(own.instructions).toContain('## Instructions from the "everything" server');
      const codex = await seen(gateway(), 'codex-mcp-client', era);
      expect(codex.tools).not.toContain('tool_search');
      expect(codex.instructions).not.toContain('tool_search');
      expect(codex.instructions).not.toContain('call_tool');
      expect(codex.instructions).toMatch(/^## Instructions from the "everything" server/);
    });
  }
});

describe('a legacy client is told of call_tool when its list has it (Claude Desktop was told only "callable by name")', () => {
  const gateway = gatewayFor({ mcpServers: servers });

  it('Claude Desktop (ignores list_changed): instructions and tool_search name call_tool; Claude Code (re-lists, no call_tool): by name', async () => {
    const desktop = await seen(gateway(), 'claude-ai', 'legacy');
    expect(desktop.tools).toContain('call_tool');
    expect(desktop.instructions).toMatch(/^Tools not in your list are on the shelf: tool_search finds them by what you want to do; run one with call_tool/);
    const client = new Client({ name: 'claude-ai', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway().url)));
    const search = (await client.listTools()).tools.find((t) => t.name === 'tool_search');
    await client.close();
    expect(search?.description).toMatch(/^Search the tools listed below by describing what you want to do; matching tools are returned with their parameters: run one with call_tool\./);
    const code = await seen(gateway(), 'claude-code', 'legacy');
    expect(code.tools).not.toContain('call_tool');
    expect(code.instructions).toMatch(/^Tools not in your list are on the shelf: tool_search finds them by what you want to do, and the ones it returns become callable by name\./);
    expect(code.instructions).not.toContain('call_tool');
  });
});

describe('a modern client without call_tool is told to run found tools by name', () => {
  const gateway = gatewayFor({ mcpServers: servers, bridge: { callTool: 'never' } });

  it('bridge.callTool "never": the opening names tool_search and running a tool by its name, not call_tool', async () => {
    const modern = await seen(gateway(), 'some-client', 'modern');
    expect(modern.tools).toContain('tool_search');
    expect(modern.tools).not.toContain('call_tool');
    expect(modern.instructions).toMatch(/^Tools not in your list are on the shelf: tool_search finds them by what you want to do; run one by its name\./);
    expect(modern.instructions).not.toContain('call_tool');
  });
});
