import { describe, expect, it } from 'vitest';
import { suggestNames } from '../../src/discovery/suggest.js';

const callable = ['files__read_text_file', 'files__read_multiple_files', 'files__write_file', 'github__create_issue', 'memory__create_entities'];

describe('unknown-name suggestions', () => {
  it('suggests a misspelled qualified name', () => {
    expect(suggestNames('files__read_txt_file', callable)[0]).toBe('files__read_text_file');
  });

  it('matches an unprefixed upstream name against the part after the separator', () => {
    expect(suggestNames('create_issue', callable)[0]).toBe('github__create_issue');
    expect(suggestNames('WRITE_FILE', callable)).toContain('files__write_file');
  });

  it('a name whose every word a callable name has comes before a closer spelling with another verb (read_file, hidden, got write_file first)', () => {
    expect(suggestNames('files__read_file', callable)[0]).toBe('files__read_text_file');
    expect(suggestNames('read_file', callable)[0]).toBe('files__read_text_file');
  });

  it('returns at most three names (or max), best first', () => {
    expect(suggestNames('files__read', callable).length).toBeLessThanOrEqual(3);
    expect(suggestNames('files__read_file', callable, 1)).toHaveLength(1);
  });

  it('offers nothing when nothing is close, and never a name outside callable', () => {
    expect(suggestNames('launch_rocket', callable)).toEqual([]);
    expect(suggestNames('', callable)).toEqual([]);
    // files__move_file is hidden, so the caller leaves it out of callable: it is never offered.
    expect(suggestNames('files__move_file', callable)).not.toContain('files__move_file');
    expect(suggestNames('files__move_file', callable).every((name) => callable.includes(name))).toBe(true);
  });
});
