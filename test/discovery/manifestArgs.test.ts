/**
 * A first call composed from the manifest alone passes admission, for every tool of the bundled
 * config's npm servers (their tools/list captured in test/fixtures/catalogs/bundled.json): the
 * arguments are built from the entry's `name(required params)` text only, then checked against the
 * canonical inputSchema by the gateway's own Admission. Source: docs/tools.md.
 */
import { describe, expect, it } from 'vitest';
import { renderManifest } from '../../src/discovery/manifest.js';
import { Admission } from '../../src/schema/admit.js';
import { bundledCatalogue } from './helpers.js';

/** Splits `a: x, b: {c: y, d: z}[]` at the commas outside braces. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '{') depth += 1;
    else if (text[i] === '}') depth -= 1;
    else if (depth === 0 && text.startsWith(', ', i)) {
      parts.push(text.slice(start, i));
      start = i + 2;
    }
  }
  if (text.length > start) parts.push(text.slice(start));
  return parts;
}

const SAMPLES: Record<string, unknown> = { string: 'x', number: 1, integer: 1, boolean: true, object: {}, array: [], null: null, any: 'x' };

/** A value a model would write for a manifest type: `string`, `string[]`, `a|b` (type union or enum), `{k: t}`, `{k: t}[]`. */
function sample(type: string): unknown {
  if (type.endsWith('[]')) return [sample(type.slice(0, -2))];
  if (type.startsWith('{')) return composeArgs(type.slice(1, -1));
  const first = type.split('|')[0]!;
  if (first in SAMPLES) return SAMPLES[first];
  return /^-?\d+(\.\d+)?$/.test(first) ? Number(first) : first;
}

/** Arguments from a signature `a: type, b: type`. */
function composeArgs(signature: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const part of splitTop(signature)) {
    if (part === '…') continue;
    const cut = part.indexOf(': ');
    args[part.slice(0, cut)] = sample(part.slice(cut + 2));
  }
  return args;
}

/** The signature of each manifest line: `name(sig) …:` → sig (empty when the line has none). */
function signatures(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of text.split('\n')) {
    const name = /^[\w-]+/.exec(line)?.[0] ?? '';
    const open = line.indexOf('(');
    if (line[name.length] !== '(' || open !== name.length) {
      found.set(name, '');
      continue;
    }
    let depth = 0;
    let end = open;
    for (; end < line.length; end += 1) {
      if (line[end] === '(') depth += 1;
      else if (line[end] === ')' && (depth -= 1) === 0) break;
    }
    found.set(name, line.slice(open + 1, end));
  }
  return found;
}

describe('a first call from the manifest alone passes admission', () => {
  const entries = bundledCatalogue();
  const manifest = renderManifest(entries, { tokenBudget: 4000 });
  const parsed = signatures(manifest.text);
  const admission = new Admission();

  it('the bundled servers fit the default budget with full entries', () => {
    expect(manifest.level).toBe('full');
    expect(parsed.size).toBe(entries.length);
  });

  it.each(entries.map((entry) => [entry.qualifiedName, entry] as const))('%s', (name, entry) => {
    const args = composeArgs(parsed.get(name) ?? '');
    const verdict = admission.check(name, entry.tool.inputSchema, args);
    expect(verdict.ok ? 'ok' : verdict.text, JSON.stringify(args)).toBe('ok');
  });
});
