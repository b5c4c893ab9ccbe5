/**
 * The size guard on tool_search answers (gateway/searchAnswerCap.ts): one tool with 20,000
 * properties made a single answer 1,178,908 bytes; now the answer stays within
 * MAX_SEARCH_ANSWER_BYTES and says how to call the tool. Everyday answers are untouched
 * (test/gateway/searchAnswer.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/catalog/types.js';
import { searchResult } from '../../src/gateway/searchAnswer.js';
import { capSearchAnswer, MAX_SEARCH_ANSWER_BYTES } from '../../src/gateway/searchAnswerCap.js';
import { entry } from '../discovery/helpers.js';

const wide: Record<string, JsonObject> = {};
for (let i = 0; i < 20000; i += 1) wide[`p${i}`] = { type: 'string', description: `param ${i}` };
const wideTool = (required: string[] = []): ReturnType<typeof entry> => entry('chaos', 'wide', 'x'.repeat(200000), { type: 'object', properties: wide, ...(required.length > 0 ? { required } : {}) });
const small = entry('chaos', 'storm', 'Sends a storm.', { type: 'object', properties: {} });

type Answer = { tools: Record<string, unknown>[]; note?: string };
const textBytes = (result: ReturnType<typeof searchResult>): number => Buffer.byteLength((result.content[0] as { text: string }).text);

describe('a search answer with a tool of 20,000 properties', () => {
  it('gives the strong match its required parameters only, says how to call it, and stays within the cap', () => {
    const result = searchResult([wideTool(['p7', 'p19999']), small], 'chaos wide', ['chaos__wide', 'chaos__storm']);
    expect(textBytes(result)).toBeLessThanOrEqual(MAX_SEARCH_ANSWER_BYTES);
    const answer = result.structuredContent as Answer;
    expect(answer.tools[0]!.parameters).toMatchObject({ properties: { p7: wide.p7, p19999: wide.p19999 }, required: ['p7', 'p19999'] });
    expect(Object.keys((answer.tools[0]!.parameters as { properties: object }).properties)).toEqual(['p7', 'p19999']);
    // The small strong match keeps its schema as the everyday answer gives it.
    expect(answer.tools[1]!.parameters).toEqual((searchResult([small], 'storm', ['chaos__storm']).structuredContent as Answer).tools[0]!.parameters);
    expect(answer.note).toBe(
      'The parameters of chaos__wide (20000 properties) are too many for this answer: only the required ones are shown. Call it with those (and any other it documents); its full schema is in its tools/list entry once listed.',
    );
  });

  it('gives it by name and summary when even its required parameters are too many', () => {
    const result = searchResult([wideTool(Object.keys(wide)), small], 'chaos wide', ['chaos__wide']);
    expect(textBytes(result)).toBeLessThanOrEqual(MAX_SEARCH_ANSWER_BYTES);
    const answer = result.structuredContent as Answer;
    expect(answer.tools[0]).toEqual({ name: 'chaos__wide', summary: `${'x'.repeat(59)}…` });
    expect(answer.note).toBe('chaos__wide is given by name only for the same reason: call it by name; a call with wrong arguments is answered with what is wrong.');
  });

  it('returns an answer within the cap as it is', () => {
    const answer = { tools: [{ name: 'a__b', summary: 'B.' }] };
    expect(capSearchAnswer(answer)).toBe(answer);
  });
});
