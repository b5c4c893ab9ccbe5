import { describe, expect, it } from 'vitest';
import { boundedRegExp } from '../../src/schema/boundedRegExp.js';

describe('bounded pattern tests (ReDoS)', () => {
  it('matches like RegExp on ordinary input', () => {
    const engine = boundedRegExp();
    expect(engine('^[a-z]+$', 'u').test('hello')).toBe(true);
    expect(engine('^[a-z]+$', 'u').test('hello world, this is long')).toBe(false);
    expect(engine('^\\d{4}-\\d{2}-\\d{2}$', 'u').test('2026-11-29')).toBe(true);
    expect(engine('o', '').test('a much longer text with an o in it')).toBe(true);
  });

  it('gives up on catastrophic backtracking within its time limit: (a+)+$ on 40 a and a bang', () => {
    // Unbounded, this takes about 2^40 steps (hours): returning at all, before the test timeout,
    // shows the limit works; no wall-clock bound a loaded machine could break.
    expect(boundedRegExp(50)('(a+)+$', 'u').test(`${'a'.repeat(40)}!`)).toBe(false);
  });

  it('throws on an invalid pattern, like new RegExp', () => {
    expect(() => boundedRegExp()('(', 'u')).toThrow();
  });
});

describe('admission with a hostile pattern', () => {
  it('rejects a crafted argument to (a+)+$ within its time limit instead of freezing, and accepts a normal one', async () => {
    const { Admission } = await import('../../src/schema/admit.js');
    const admission = new Admission();
    const schema = { type: 'object', properties: { x: { type: 'string', pattern: '(a+)+$' } } };
    // 40 a: hours of backtracking unbounded, so finishing at all shows the limit (no wall-clock bound).
    const verdict = admission.check('s__pattern_evil', schema, { x: `${'a'.repeat(40)}!` });
    expect(verdict.ok).toBe(false);
    expect(admission.check('s__pattern_evil', schema, { x: 'aaa' }).ok).toBe(true);
  });
});
