/**
 * The modern era's wording: tool_search's opening sentence says how found tools
 * run for a client whose list never grows, and is no longer than the legacy one, so a description
 * fitted to a client's limit (Claude Code: 2,048 characters; docs/tools.md) still fits; the instructions
 * keep the upstreams' own after the modern opening.
 */
import { describe, expect, it } from 'vitest';
import { TOOL_SEARCH_PREAMBLE } from '../../../src/discovery/manifest.js';
import { SHELF_INSTRUCTIONS } from '../../../src/gateway/instructions.js';
import { MODERN_INSTRUCTIONS, modernInstructions } from '../../../src/gateway/modern/server.js';
import { MODERN_SEARCH_PREAMBLE, modernSearchDescription } from '../../../src/gateway/toolList.js';

describe('modern wording', () => {
  it('tool_search: the modern preamble replaces the legacy one, the manifest after it unchanged, never longer', () => {
    const legacy = `${TOOL_SEARCH_PREAMBLE}\n\nfiles__read_text_file(path): Read a file.`;
    const modern = modernSearchDescription(legacy);
    expect(modern).toBe(`${MODERN_SEARCH_PREAMBLE}\n\nfiles__read_text_file(path): Read a file.`);
    expect(modern).toMatch(/call_tool/);
    expect(modern).not.toMatch(/become callable/);
    expect(MODERN_SEARCH_PREAMBLE.length).toBeLessThanOrEqual(TOOL_SEARCH_PREAMBLE.length);
  });

  it("instructions: the modern opening, then the upstreams' own unchanged", () => {
    const upstreams = '\n\n## memory\nUse the graph.';
    expect(modernInstructions(SHELF_INSTRUCTIONS + upstreams)).toBe(MODERN_INSTRUCTIONS + upstreams);
    expect(MODERN_INSTRUCTIONS).toMatch(/call_tool or by its name/);
  });
});
