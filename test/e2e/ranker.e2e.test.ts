/**
 * tool_search through the built CLI with real upstreams: host rankers that work, throw, hang,
 * invent names or find nothing, in `ranker` and `compare` modes, checked on the client's answer
 * and on the `tool_searched` trace line; the description per client (Claude Code's 2,048-character
 * cut); discovery switched off; and bad tool_search arguments.
 * Source: docs/tools.md (tool_search, client description limits), docs/search.md (host ranker, rankMode),
 * docs/cli.md (`tool_searched`), docs/configuration.md (discovery disabled).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { countTokens } from '../../src/discovery/manifest.js';
import {
  alive,
  repoRoot,
  serverEntry,
  startHttp,
  startStdio,
  tempDir,
  textOf,
  waitFor,
  writeConfig,
  type Connected,
  type HttpGateway,
} from '../helpers/gateway.js';

const ranker = (name: string): string => join(repoRoot, 'test', 'fixtures', 'rankers', `${name}.mjs`);
const RANKER_TIMEOUT_MS = 300;

interface SearchedLine {
  event: 'tool_searched';
  matched: string[];
  ranker: string;
  topScore?: number;
  fallback?: string;
  shadowMatched?: string[];
  latencyMs: number;
}

interface Found {
  names: string[];
  text: string;
  isError: boolean;
}

/** Calls tool_search and returns the names in structuredContent, the text and isError. */
async function search(client: Client, query: string, limit?: number): Promise<Found> {
  const result = await client.callTool({ name: 'tool_search', arguments: { query, ...(limit === undefined ? {} : { limit }) } });
  const tools = (result.structuredContent as { tools?: { name: string }[] } | undefined)?.tools ?? [];
  return { names: tools.map((tool) => tool.name), text: textOf(result), isError: result.isError === true };
}

/** The `n`-th `tool_searched` line of a trace file, once it has been written. */
async function searchedLine(tracePath: string, n: number): Promise<SearchedLine> {
  const lines = (): SearchedLine[] =>
    existsSync(tracePath)
      ? readFileSync(tracePath, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as SearchedLine)
          .filter((event) => event.event === 'tool_searched')
      : [];
  await waitFor(() => lines().length > n, 3000);
  const line = lines()[n];
  if (!line) throw new Error(`no tool_searched line #${n} in ${tracePath}`);
  return line;
}

const everything = { command: 'node', args: [serverEntry('everything'), 'stdio'] };

/** A gateway over server-everything with the given discovery settings, tracing to a temp file. */
async function gatewayWith(discovery: Record<string, unknown>): Promise<{ gw: Connected; trace: string }> {
  const dir = tempDir();
  const trace = join(dir, 'trace.jsonl');
  const gw = await startStdio(writeConfig({ mcpServers: { everything }, discovery }, dir), ['--trace', trace]);
  return { gw, trace };
}

/** What plain BM25 answers, from a gateway with no ranker, for comparison. */
let bm25: Connected;
beforeAll(async () => {
  bm25 = (await gatewayWith({ rankMode: 'bm25' })).gw;
});
afterAll(() => bm25.close());

const QUERY = 'get a resource reference';

type Expectation = { ranker: 'host' | 'bm25'; fallback?: RegExp };
const RANKERS: [label: string, module: string, expected: Expectation][] = [
  ['a working ranker serves', ranker('good'), { ranker: 'host' }],
  ['a ranker that throws falls back to BM25', ranker('throws'), { ranker: 'bm25', fallback: /^ranker threw: ranker exploded$/ }],
  ['a ranker that hangs falls back at rankerTimeoutMs', ranker('hangs'), { ranker: 'bm25', fallback: new RegExp(`^ranker timed out after ${RANKER_TIMEOUT_MS} ms$`) }],
  ['a ranker that invents names falls back to BM25', ranker('invents'), { ranker: 'bm25', fallback: /^ranker returned only unknown names$/ }],
  ['a ranker that returns [] falls back to BM25', ranker('empty'), { ranker: 'bm25', fallback: /^ranker returned no result$/ }],
  ['a ranker module that is missing falls back to BM25', './no-such-ranker.mjs', { ranker: 'bm25', fallback: /^ranker module \.\/no-such-ranker\.mjs failed to load: / }],
];

for (const mode of ['ranker', 'compare'] as const) {
  describe.concurrent(`discovery.rankMode "${mode}"`, () => {
    for (const [label, module, expected] of RANKERS) {
      it(`${label}; tool_search never fails and the trace says who served`, async () => {
        const { gw, trace } = await gatewayWith({ ranker: module, rankMode: mode, rankerTimeoutMs: RANKER_TIMEOUT_MS });
        try {
          const found = await search(gw.client, QUERY, 4);
          const baseline = await search(bm25.client, QUERY, 4);
          expect(found.isError).toBe(false);
          expect(found.names.length).toBeGreaterThan(0);
          const line = await searchedLine(trace, 0);
          expect(line.matched).toEqual(found.names);
          expect(line.ranker).toBe(expected.ranker);
          if (expected.fallback) {
            expect(line.fallback).toMatch(expected.fallback);
            expect(found.names).toEqual(baseline.names);
            expect(line.shadowMatched).toBeUndefined();
          } else {
            expect(line.fallback).toBeUndefined();
            // The fixture's own order (reverse by name), not BM25's.
            expect(found.names).toEqual(['everything__gzip-file-as-resource', 'everything__get-tiny-image', 'everything__get-sum', 'everything__get-structured-content']);
            expect(found.names).not.toEqual(baseline.names);
            expect(line.topScore).toBe(1);
            if (mode === 'compare') expect(line.shadowMatched).toEqual(baseline.names);
            else expect(line.shadowMatched).toBeUndefined();
          }
          if (module === ranker('hangs')) expect(line.latencyMs).toBeGreaterThanOrEqual(RANKER_TIMEOUT_MS - 5);
        } finally {
          await gw.close();
        }
        // A hanging ranker's pending timer does not keep the gateway alive.
        expect(await waitFor(() => !alive(gw.pid), 5000)).toBe(true);
      });
    }
  });
}

describe('names a host ranker invents never reach the client', () => {
  let gw: Connected;
  let trace: string;
  beforeAll(async () => {
    ({ gw, trace } = await gatewayWith({ ranker: ranker('invents'), rankMode: 'compare' }));
  });
  afterAll(() => gw.close());

  it('only the real name among invented ones is served, traced and promoted', async () => {
    const found = await search(gw.client, 'add up the sum of two numbers');
    expect(found.names).toEqual(['everything__get-sum']);
    expect(found.text).not.toMatch(/teleport|made_up|rm -rf/);
    const line = await searchedLine(trace, 0);
    expect(line).toMatchObject({ ranker: 'host', matched: ['everything__get-sum'] });
    expect(line.fallback).toBeUndefined();
    expect(JSON.stringify(line)).not.toMatch(/teleport|made_up|rm -rf/);
    const { tools } = await gw.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('everything__get-sum');
    expect(tools.map((tool) => tool.name).join(' ')).not.toMatch(/teleport|made_up/);
  });

  it('an invented name called directly is an unknown tool, not a crash', async () => {
    const result = await gw.client.callTool({ name: 'everything__teleport', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Unknown tool "everything__teleport"\./);
  });
});

describe("tool_search's description per client", () => {
  let http: HttpGateway;
  let deferred: string[];
  beforeAll(async () => {
    const dir = tempDir();
    http = await startHttp(
      writeConfig({ mcpServers: { everything, files: { command: 'node', args: [serverEntry('filesystem'), dir] } } }, dir),
    );
    const client = await http.connect('toolshelf-e2e-probe');
    const description = await searchDescription(client);
    deferred = [...description.matchAll(/^([\w-]+__[\w-]+)/gm)].map((match) => match[1] as string);
  });
  afterAll(() => http.stop());

  async function searchDescription(client: Client): Promise<string> {
    const { tools } = await client.listTools();
    return tools.find((tool) => tool.name === 'tool_search')?.description ?? '';
  }

  it('Claude Code (clientInfo.name "claude-code") gets at most 2,048 characters, still naming every deferred tool', async () => {
    const description = await searchDescription(await http.connect('claude-code'));
    expect(description.length).toBeLessThanOrEqual(2048);
    expect(deferred.length).toBeGreaterThan(20);
    for (const name of deferred) expect(description).toContain(name);
  });

  it('a client not in the table gets the full token budget: longer than 2,048 characters, within 4,000 tokens', async () => {
    const description = await searchDescription(await http.connect('some-other-client'));
    expect(description.length).toBeGreaterThan(2048);
    expect(countTokens(description)).toBeLessThanOrEqual(4000);
    expect(description).toMatch(/^everything__get-sum\(a: number, b: number\) \(read-only\): \S/m);
  });

  it('an unnamed client gets the same description as one not in the table', async () => {
    expect(await searchDescription(await http.connect(''))).toBe(await searchDescription(await http.connect('some-other-client')));
  });

  describe('bad tool_search arguments get an isError the model can act on, or a clamp', () => {
    let client: Client;
    beforeAll(async () => {
      client = await http.connect('toolshelf-e2e-args');
    });
    const broad = 'get read list files directory resource';

    it('a missing, empty or non-string query is an isError naming "query"', async () => {
      for (const args of [{}, { query: '' }, { query: '   ' }, { query: 42 }, { limit: 3 }]) {
        const result = await client.callTool({ name: 'tool_search', arguments: args });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toBe('tool_search needs "query": a non-empty string saying what you want to do.');
      }
    });

    it('limit 0 is clamped to 1 and limit 100 to maxLimit 20', async () => {
      expect((await search(client, broad, 0)).names).toHaveLength(1);
      const many = await search(client, broad, 100);
      expect(many.isError).toBe(false);
      expect(many.names).toHaveLength(20);
    });

    it('no limit means defaultLimit 5; a fractional limit is truncated', async () => {
      expect((await search(client, broad)).names).toHaveLength(5);
      expect((await search(client, broad, 2.7)).names).toHaveLength(2);
    });

    it('a limit that is not a number ("x", null) is an isError naming the allowed range', async () => {
      for (const limit of ['x', null]) {
        const result = await client.callTool({ name: 'tool_search', arguments: { query: broad, limit } });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toBe('tool_search "limit" must be an integer from 1 to 20.');
      }
    });
  });
});

describe('discovery.enabled false', () => {
  let gw: Connected;
  beforeAll(async () => {
    ({ gw } = await gatewayWith({ enabled: false }));
  });
  afterAll(() => gw.close());

  it('advertises no tool_search, and no manifest anywhere', async () => {
    const { tools } = await gw.client.listTools();
    expect(tools.map((tool) => tool.name)).not.toContain('tool_search');
    expect(JSON.stringify(tools)).not.toContain('everything__get-sum');
  });

  it('still runs a deferred tool called by its qualified name', async () => {
    const result = await gw.client.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 40 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('42');
  });

  it('answers a tool_search call like an unknown tool, without pointing to tool_search', async () => {
    const result = await gw.client.callTool({ name: 'tool_search', arguments: { query: 'add numbers' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Unknown tool "tool_search"\./);
    expect(textOf(result)).not.toContain('Call tool_search');
  });
});
