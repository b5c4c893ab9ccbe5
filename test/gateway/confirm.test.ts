import { describe, expect, it } from 'vitest';
import { canElicitForm, confirmationRequest, confirmed, riskToConfirm } from '../../src/gateway/confirm.js';
import { bundledCatalogue, entry } from '../discovery/helpers.js';
import type { CatalogEntry } from '../../src/catalog/types.js';

const annotated = (hints: Record<string, boolean>): CatalogEntry => {
  const base = entry('s', 't', 'T.');
  return { ...base, tool: { ...base.tool, annotations: hints } };
};

describe('which bridged calls are confirmed', () => {
  it('per policy: declared destructive; MCP defaults (unannotated too); open world; off', () => {
    const destructive = annotated({ destructiveHint: true });
    const bare = entry('s', 'bare', 'B.');
    const web = annotated({ readOnlyHint: true, openWorldHint: true });
    expect(riskToConfirm(destructive, 'destructive')).toBe('declares itself destructive');
    expect(riskToConfirm(bare, 'destructive')).toBeUndefined();
    expect(riskToConfirm(web, 'destructive')).toBeUndefined();
    expect(riskToConfirm(bare, 'mcp-defaults')).toBe('may be destructive (it declares no annotations)');
    expect(riskToConfirm(web, 'mcp-defaults')).toBeUndefined();
    expect(riskToConfirm(web, 'open-world')).toBe('reaches outside systems (open world)');
    for (const tool of [destructive, bare, web]) expect(riskToConfirm(tool, 'off')).toBeUndefined();
  });

  it('the bundled servers under the default: the filesystem writes and memory deletions, nothing else', () => {
    const asked = bundledCatalogue()
      .filter((e) => riskToConfirm(e, 'destructive') !== undefined)
      .map((e) => e.qualifiedName)
      .sort();
    expect(asked).toEqual(['files__edit_file', 'files__move_file', 'files__write_file', 'memory__delete_entities', 'memory__delete_observations', 'memory__delete_relations']);
  });

  it('form elicitation: {} or form declared; URL mode alone or nothing is not', () => {
    expect(canElicitForm({})).toBe(true);
    expect(canElicitForm({ form: {} })).toBe(true);
    expect(canElicitForm({ form: {}, url: {} })).toBe(true);
    expect(canElicitForm({ url: {} })).toBe(false);
    expect(canElicitForm(undefined)).toBe(false);
  });

  it('the question is one required yes/no; only accept with yes confirms', () => {
    const request = confirmationRequest(annotated({ destructiveHint: true }), { big: 'x'.repeat(1000) }, 'declares itself destructive');
    expect(request).toMatchObject({ mode: 'form', requestedSchema: { type: 'object', required: ['allow'], properties: { allow: { type: 'boolean' } } } });
    expect(String(request.message).length).toBeLessThan(700);
    expect(confirmed({ action: 'accept', content: { allow: true } })).toBe(true);
    expect(confirmed({ action: 'accept', content: { allow: false } })).toBe(false);
    expect(confirmed({ action: 'accept' })).toBe(false);
    expect(confirmed({ action: 'decline' })).toBe(false);
  });
});
