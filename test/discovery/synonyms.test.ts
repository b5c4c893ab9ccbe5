import { describe, expect, it } from 'vitest';
import { nameAliases } from '../../src/discovery/synonyms.js';

describe('name synonyms (index fields)', () => {
  it('expands each word of a name in any identifier style to the other words of its group', () => {
    expect(nameAliases('write_file')).toBe('save store');
    expect(nameAliases('createDirectory')).toBe('make add folder dir');
    expect(nameAliases('browser.takeScreenshot')).toBe('capture snapshot');
  });

  it('leaves out words the name already has, and repeats nothing', () => {
    expect(nameAliases('save_and_write')).toBe('store');
    expect(nameAliases('get_fetch_get')).toBe('retrieve obtain');
  });

  it('matches through stemming on both sides (`removes`, `deleted`)', () => {
    expect(nameAliases('removes_item')).toBe('delete erase destroy');
    expect(nameAliases('deleted_items')).toBe('remove erase destroy');
  });

  it('gives nothing for names without a known word, or without words', () => {
    expect(nameAliases('bazi_detail')).toBe('');
    expect(nameAliases('')).toBe('');
    expect(nameAliases('___')).toBe('');
  });
});
