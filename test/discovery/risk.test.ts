import { describe, expect, it } from 'vitest';
import { hintsOf, hintWords, isDestructive, isOpenWorld, riskTag } from '../../src/discovery/risk.js';
import { describeToolSearch } from '../../src/discovery/manifest.js';
import { bundledCatalogue, entry } from './helpers.js';

describe('reading annotations with MCP defaults', () => {
  it('keeps only boolean hints', () => {
    expect(hintsOf({ annotations: { title: 'x', readOnlyHint: true, destructiveHint: 'yes', openWorldHint: false } })).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(hintsOf({})).toEqual({});
    expect(hintsOf({ annotations: [true] })).toEqual({});
  });

  it('absent hints take the spec defaults: destructive and open-world unless said otherwise', () => {
    expect(isDestructive({})).toBe(true);
    expect(isOpenWorld({})).toBe(true);
    expect(isDestructive({ readOnlyHint: true, destructiveHint: true })).toBe(false);
    expect(isDestructive({ readOnlyHint: false })).toBe(true);
    expect(isDestructive({ destructiveHint: false })).toBe(false);
  });

  it('marks: read-only, declared destructive (readOnlyHint false alone counts), nothing for an unannotated or additive tool', () => {
    expect(riskTag({ readOnlyHint: true })).toBe('(read-only)');
    expect(riskTag({ destructiveHint: true })).toBe('(destructive)');
    expect(riskTag({ readOnlyHint: false })).toBe('(destructive)');
    expect(riskTag({})).toBe('');
    expect(riskTag({ openWorldHint: true })).toBe('');
    expect(riskTag({ readOnlyHint: false, destructiveHint: false })).toBe('');
  });

  it('search answers put the set hints in a few words: what a call changes and a declared open world', () => {
    expect(hintWords({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })).toBe('read-only');
    expect(hintWords({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true })).toBe('additive, open-world');
    expect(hintWords({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false })).toBe('destructive');
    expect(hintWords({ destructiveHint: true })).toBe('destructive');
    expect(hintWords({ idempotentHint: true, openWorldHint: false })).toBe('');
    expect(hintWords({})).toBe('');
  });
});

describe('manifest marks on the bundled servers', () => {
  const entries = bundledCatalogue();
  const text = describeToolSearch(entries, { tokenBudget: 100_000 }).text;

  it('destructive and read-only tools are marked at the full and short rungs, deterministically', () => {
    expect(text).toMatch(/^files__write_file\([^)]*\) \(destructive\): /m);
    expect(text).toMatch(/^files__read_text_file\([^)]*\) \(read-only\): /m);
    expect(text).toMatch(/^memory__delete_entities\([^)]*\) \(destructive\): /m);
    expect(text).not.toMatch(/^memory__create_entities[^:]*\((destructive|read-only)\)/m);
    expect(describeToolSearch(entries, { tokenBudget: 100_000 }).text).toBe(text);
    // The largest description limit that forces the short rung.
    const limits = Array.from({ length: 40 }, (_, i) => 2000 + i * 250);
    const short = limits.map((maxChars) => describeToolSearch(entries, { tokenBudget: 100_000, maxChars })).find((m) => m.level === 'short');
    if (short === undefined) throw new Error('no limit gives the short rung');
    expect(short.text).toMatch(/^files__write_file \(destructive\): /m);
  });

  it('an unannotated tool is not marked', () => {
    expect(describeToolSearch([entry('x', 'plain', 'Does a thing.')], { tokenBudget: 1000 }).text).toMatch(/^x__plain: Does a thing\.$/m);
  });
});
