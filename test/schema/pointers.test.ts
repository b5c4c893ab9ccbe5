import { describe, expect, it } from 'vitest';
import { PointerIndex, within } from '../../src/schema/pointers.js';

describe('within (JSON pointer containment)', () => {
  it('holds for the pointer itself and pointers below it, whole tokens only', () => {
    expect(within('/a/b', '/a')).toBe(true);
    expect(within('/a', '/a')).toBe(true);
    expect(within('/ab', '/a')).toBe(false);
    expect(within('/a', '/a/b')).toBe(false);
    expect(within('/a', '')).toBe(true);
    expect(within('', '')).toBe(true);
  });
});

describe('PointerIndex (JSON pointer containment, token by token)', () => {
  const index = new PointerIndex<string>();
  for (const ptr of ['', '/$defs/a', '/$defs/a/$defs/b', '/$defs/ab', '/$defs/x~1y', '/$defs/']) index.add(ptr, ptr);

  it('lists every stored pointer a pointer lies inside, outermost first, itself included', () => {
    expect(index.along('/$defs/a/$defs/b/properties/c')).toEqual(['', '/$defs/a', '/$defs/a/$defs/b']);
    expect(index.along('/$defs/a')).toEqual(['', '/$defs/a']);
    expect(index.along('')).toEqual(['']);
  });

  it('compares whole tokens, escaped as stored: /$defs/ab is not inside /$defs/a', () => {
    expect(index.along('/$defs/ab/items')).toEqual(['', '/$defs/ab']);
    expect(index.along('/$defs/x~1y/type')).toEqual(['', '/$defs/x~1y']);
    expect(index.along('/$defs/x/y')).toEqual(['']);
  });

  it('treats an empty token as a token', () => {
    expect(index.along('/$defs//z')).toEqual(['', '/$defs/']);
  });

  it('finds the same pointers whatever order they were added in', () => {
    const ptrs = ['/a/b/c', '/a/b/d', '/a/x', '/a/b/c/e/f', '', '/a/b', '/z', '/a/b/c/e', '/a/b/c/e/f/g/h'];
    const probes = ['/a/b/c/e/f/g/h/i', '/a/b/d/q', '/a/x', '/z/y', '/q'];
    const expected = probes.map((p) => ptrs.filter((q) => p === q || p.startsWith(`${q}/`) || q === '').sort((x, y) => x.length - y.length));
    for (const order of [ptrs, [...ptrs].reverse(), [...ptrs].sort()]) {
      const idx = new PointerIndex<string>();
      for (const ptr of order) idx.add(ptr, ptr);
      expect(probes.map((p) => idx.along(p))).toEqual(expected);
    }
  });
});
