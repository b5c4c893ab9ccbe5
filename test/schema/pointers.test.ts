import { describe, expect, it } from 'vitest';
import { PointerIndex } from '../../src/schema/pointers.js';

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

  it('answers innermost, or undefined when nothing contains the pointer', () => {
    expect(index.innermost('/$defs/a/$defs/b')).toBe('/$defs/a/$defs/b');
    expect(new PointerIndex<number>().innermost('/a')).toBeUndefined();
  });
});
