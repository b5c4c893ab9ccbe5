import { describe, expect, it } from 'vitest';
import { boundedRegExp } from '../../src/schema/boundedRegExp.js';

describe('bounded pattern tests (breaker C2: ReDoS)', () => {
  it('matches like RegExp on ordinary input', () => {
    const engine = boundedRegExp();
    expect(engine('^[a-z]+$', 'u').test('hello')).toBe(true);
    expect(engine('^[a-z]+$', 'u').test('hello world, this is long')).toBe(false);
    expect(engine('^\\d{4}-\\d{2}-\\d{2}$', 'u').test('2026-11-29')).toBe(true);
    expect(engine('o', '').test('a much longer text with an o in it')).toBe(true);
  });

  it('gives up on catastrophic backtracking within its time limit: (a+)+$ on 30 a and a bang', () => {
    const started = performance.now();
    expect(boundedRegExp(50)('(a+)+$', 'u').test(`${'a'.repeat(30)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('throws on an invalid pattern, like new RegExp', () => {
    expect(() => boundedRegExp()('(', 'u')).toThrow();
  });
});

describe('admission with a hostile pattern (breaker C2)', () => {
  it('rejects a crafted argument to (a+)+$ within its time limit instead of freezing, and accepts a normal one', async () => {
    const { Admission } = await import('../../src/schema/admit.js');
    const admission = new Admission();
    const schema = { type: 'object', properties: { x: { type: 'string', pattern: '(a+)+$' } } };
    const started = performance.now();
    const verdict = admission.check('s__pattern_evil', schema, { x: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa!' });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(verdict.ok).toBe(false);
    expect(admission.check('s__pattern_evil', schema, { x: 'aaa' }).ok).toBe(true);
  });
});
