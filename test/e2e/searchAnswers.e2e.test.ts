/**
 * tool_search's answers through the built CLI, over stdio and Streamable HTTP, on the bundled
 * config's real npm servers: compact answers (full schema for strong matches only), weak matches
 * said and traced, promotion of strong matches only (a legacy client's list grows by what fits),
 * an exact name promoting that tool alone. Source: docs/tools.md, docs/cli.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { repoRoot, serverEntry, startHttp, startStdio, tempDir, textOf, waitFor, writeConfig, type Connected, type HttpGateway } from '../helpers/gateway.js';

interface Answer {
  tools: ({ name: string; description: string; parameters: object } | { name: string; summary: string })[];
  note?: string;
  weak?: boolean;
}

/** The bundled servers.config.json with absolute server paths, a temp sandbox and a temp memory file. */
function bundledConfig(): { path: string; trace: string } {
  const dir = tempDir();
  const bundled = JSON.parse(readFileSync(join(repoRoot, 'servers.config.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args?: string[]; env?: object }> };
  const entries: Record<string, 'filesystem' | 'memory' | 'everything' | 'sequential-thinking'> = { files: 'filesystem', memory: 'memory', everything: 'everything', thinking: 'sequential-thinking' };
  const { $schema: _schema, ...rest } = bundled as unknown as Record<string, unknown>;
  for (const [key, pkg] of Object.entries(entries)) {
    const server = bundled.mcpServers[key]!;
    // The bundled config runs each server by its npm bin; here by node and the package's entry file.
    server.command = 'node';
    server.args = [serverEntry(pkg), ...(server.args ?? []).map((arg) => (arg === 'sandbox' ? dir : arg))];
  }
  bundled.mcpServers.memory!.env = { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
  return { path: writeConfig({ ...rest, mcpServers: bundled.mcpServers }, dir), trace: join(dir, 'trace.jsonl') };
}

async function search(client: Client, query: string): Promise<{ answer: Answer; bytes: number; text: string }> {
  const result = await client.callTool({ name: 'tool_search', arguments: { query } });
  expect(result.isError).toBeFalsy();
  return { answer: result.structuredContent as unknown as Answer, bytes: Buffer.byteLength(JSON.stringify(result)), text: textOf(result) };
}

const names = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((tool) => tool.name);

function searchedLines(trace: string): { weak: boolean; topScore?: number; strong: string[]; matched: string[] }[] {
  try {
    return readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((event) => event.event === 'tool_searched');
  } catch {
    return [];
  }
}

function answersSuite(label: string, setup: () => { fresh: () => Promise<Client>; trace: string }) {
  describe(label, () => {
    it('"add two numbers": get-sum with its schema, the others by name and one line; text equals structuredContent', async () => {
      const client = await setup().fresh();
      const { answer, bytes, text } = await search(client, 'add two numbers');
      expect(JSON.parse(text)).toEqual(answer);
      expect(answer.tools[0]).toMatchObject({ name: 'everything__get-sum', parameters: { required: ['a', 'b'] } });
      expect(answer.tools.filter((tool) => 'parameters' in tool)).toHaveLength(1);
      for (const tool of answer.tools.slice(1)) {
        // The upstream's annotations ride along in words (docs/security.md "Risky calls").
        expect(Object.keys(tool).sort()).toEqual(['hints', 'name', 'summary']);
        expect((tool as { summary: string }).summary).not.toContain('\n');
      }
      expect(answer.weak).toBeUndefined();
      // Five full schemas used to take 9,197 bytes here; one schema and four lines fit in a quarter.
      expect(bytes).toBeLessThan(9197 / 4);
    });

    it('"send an email" is judged weak: the closest tools by name and summary, a note saying so and how to rephrase, traced weak with the top score (point 3)', async () => {
      const { fresh, trace } = setup();
      const client = await fresh();
      const before = searchedLines(trace).length;
      const { answer } = await search(client, 'send an email');
      expect(answer.weak).toBe(true);
      expect(answer.tools.length).toBeGreaterThan(0);
      expect(answer.tools.every((tool) => !('parameters' in tool))).toBe(true);
      expect(answer.note).toBe(
        'No tool clearly matches; these are only the closest. Rephrase with the action and the object (e.g. "read file", "create issue"), pick one by name, or say no tool does it.',
      );
      expect(await waitFor(() => searchedLines(trace).length > before, 3000)).toBe(true);
      const line = searchedLines(trace).at(-1)!;
      expect(line).toMatchObject({ weak: true, strong: [] });
      expect(line.topScore).toBeGreaterThan(0);
    });

    it('only strong matches are promoted: the legacy client list grows by get-sum alone, and a weak search promotes nothing (point 2)', async () => {
      const client = await fresh(setup);
      const first = await names(client);
      await search(client, 'add two numbers');
      expect(await names(client)).toEqual([...first, 'everything__get-sum']);
      await search(client, 'send an email');
      expect(await names(client)).toEqual([...first, 'everything__get-sum']);
    });

    it('an exact-name search promotes that tool alone (point 2)', async () => {
      const client = await fresh(setup);
      const first = await names(client);
      const { answer } = await search(client, 'memory__create_entities');
      expect(answer.tools[0]).toMatchObject({ name: 'memory__create_entities', parameters: { required: ['entities'] } });
      expect(answer.tools.filter((tool) => 'parameters' in tool)).toHaveLength(1);
      expect(await names(client)).toEqual([...first, 'memory__create_entities']);
    });
  });
}

const fresh = (setup: () => { fresh: () => Promise<Client> }): Promise<Client> => setup().fresh();

describe('over stdio', () => {
  const { path, trace } = bundledConfig();
  const opened: Connected[] = [];
  afterAll(() => Promise.all(opened.map((gw) => gw.close())));
  answersSuite('stdio sessions', () => ({
    trace,
    fresh: async () => {
      const gw = await startStdio(path, ['--trace', trace]);
      opened.push(gw);
      return gw.client;
    },
  }));
});

describe('over Streamable HTTP', () => {
  const { path, trace } = bundledConfig();
  let gateway: HttpGateway;
  beforeAll(async () => {
    gateway = await startHttp(path, ['--trace', trace]);
  });
  afterAll(async () => {
    expect(await gateway.stop()).toBe(0);
  });
  answersSuite('http sessions', () => ({ trace, fresh: () => gateway.connect() }));
});
