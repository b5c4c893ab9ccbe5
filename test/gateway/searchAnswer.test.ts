import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildSearchIndex } from '../../src/discovery/searchIndex.js';
import { judge } from '../../src/discovery/strength.js';
import { searchResult, STRONG_DESCRIPTION_CHARS } from '../../src/gateway/searchAnswer.js';
import { bundledCatalogue, entry } from '../discovery/helpers.js';

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

describe('compact tool_search answers', () => {
  it('a strong match: its first whole sentences within the limit, its schema without $schema and the top-level object type; summary-only matches carry no note', () => {
    const long = 'Move or rename files and directories. Can move files between directories and rename them in a single operation. If the destination exists, the operation will fail. Works across different directories and can be used for simple renaming within the same directory.';
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { source: { type: 'string' } }, required: ['source'] };
    const strong = entry('files', 'move_file', long, schema);
    const other = entry('files', 'read_file', 'Read a file.');
    const answer = searchResult([strong, other], 'rename a file', ['files__move_file']).structuredContent as { tools: Record<string, unknown>[]; note?: string };
    expect(answer.tools[0]).toEqual({
      name: 'files__move_file',
      description: 'Move or rename files and directories. Can move files between directories and rename them in a single operation.',
      parameters: { properties: { source: { type: 'string' } }, required: ['source'] },
    });
    expect((answer.tools[0]!.description as string).length).toBeLessThanOrEqual(STRONG_DESCRIPTION_CHARS);
    expect(answer.tools[1]).toEqual({ name: 'files__read_file', summary: 'Read a file.' });
    expect(answer.note).toBeUndefined();
  });

  it('each match carries its hints compactly: what a call changes and a declared open world, nothing for an unannotated tool', () => {
    const annotated = (name: string, annotations: Record<string, boolean>) => ({ ...entry('files', name, `The ${name} tool.`), tool: { name, description: `The ${name} tool.`, inputSchema: { type: 'object' }, annotations } });
    const entries = [
      annotated('read_file', { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }),
      annotated('write_file', { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }),
      annotated('fetch', { readOnlyHint: false, destructiveHint: false, openWorldHint: true }),
      entry('files', 'plain', 'The plain tool.'),
    ];
    const answer = searchResult(entries, 'file', ['files__read_file']).structuredContent as { tools: Record<string, unknown>[] };
    expect(answer.tools.map((tool) => tool.hints)).toEqual(['read-only', 'destructive', 'additive, open-world', undefined]);
    expect(answer.tools[0]!.parameters).toEqual({});
  });

  // Under 30% before the hints were cut to these words, the strong description to 160 characters and the object type dropped (docs/search.md "Answers").
  it('median answer over the everyday requests is at most 25% of the full-schema answer (bench/fixtures/everyday.json)', () => {
    const requests = JSON.parse(readFileSync(new URL('../../bench/fixtures/everyday.json', import.meta.url), 'utf8')) as { query: string }[];
    const skip = new Set(['files__read_text_file', 'files__list_directory', 'files__read_file']);
    const entries = bundledCatalogue().filter((e) => !skip.has(e.qualifiedName));
    const byName = new Map(entries.map((e) => [e.qualifiedName, e]));
    const index = buildSearchIndex(entries);
    const full: number[] = [];
    const compact: number[] = [];
    for (const { query } of requests) {
      const ranked = index.rank(query, 5);
      const matched = ranked.hits.map((hit) => byName.get(hit.name)!);
      const tools = matched.map((e) => ({ name: e.qualifiedName, description: e.projected.description, parameters: e.projected.inputSchema }));
      full.push(bytes({ content: [{ type: 'text', text: JSON.stringify({ tools }) }], structuredContent: { tools } }));
      compact.push(bytes(searchResult(matched, query, judge(ranked).strong)));
    }
    const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    expect(median(compact) / median(full)).toBeLessThanOrEqual(0.25);
  });
});
