/**
 * outputSchema compile verdicts outlive the process in the state folder, so a start from the
 * catalogue cache compiles none seen before (docs/performance.md); a verdict file where another user
 * could have written it is never read.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputVerdictFile } from '../../src/schema/outputVerdicts.js';
import { knownCompileVerdicts, wireOutputSchema } from '../../src/schema/wire.js';
import { tempDir } from '../helpers/gateway.js';

const keyOf = (schema: object): string => createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 32);

describe('outputSchema compile verdicts', () => {
  it('remembers what compiling gave, and saves it 0600 beside the catalogue cache', () => {
    const bad = { type: 'object', properties: { id: { type: 'string', pattern: '(unclosed' } } };
    const good = { type: 'object', properties: { saved: { type: 'boolean' } } };
    expect(wireOutputSchema(bad)).toMatchObject({ ok: false, reason: expect.stringMatching(/^outputSchema does not compile: Invalid regular expression/) });
    expect(wireOutputSchema(good)).toEqual({ ok: true, schema: good });
    expect(knownCompileVerdicts().get(keyOf(bad))).toMatch(/Invalid regular expression/);
    expect(knownCompileVerdicts().get(keyOf(good))).toBe('');
    const state = tempDir();
    const dir = join(state, 'catalog');
    outputVerdictFile(dir, state).save();
    const file = join(dir, 'output-verdicts.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ [keyOf(bad)]: expect.stringMatching(/Invalid regular expression/), [keyOf(good)]: '' });
  });

  it('uses a verdict read back instead of compiling: a file that says a schema compiles is believed', () => {
    // Does not compile; the file says it does, so only a verdict read from the file can pass it.
    const schema = { type: 'object', properties: { n: { type: 'string', pattern: '[never-compiled' } } };
    const state = tempDir();
    const dir = join(state, 'catalog');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'output-verdicts.json'), JSON.stringify({ [keyOf(schema)]: '', 'not-a-key': '', [keyOf({ x: 1 })]: 7 }), { mode: 0o600 });
    outputVerdictFile(dir, state).load();
    expect(wireOutputSchema(schema)).toEqual({ ok: true, schema });
    expect(knownCompileVerdicts().has('not-a-key')).toBe(false);
    expect(knownCompileVerdicts().has(keyOf({ x: 1 }))).toBe(false);
  });

  it('never reads a verdict file in a folder others may write to, nor writes one there', () => {
    const schema = { type: 'object', properties: { n: { type: 'string', pattern: '[planted' } } };
    const state = tempDir();
    const dir = join(state, 'catalog');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'output-verdicts.json'), JSON.stringify({ [keyOf(schema)]: '' }), { mode: 0o600 });
    chmodSync(dir, 0o777);
    const file = outputVerdictFile(dir, state);
    file.load();
    expect(wireOutputSchema(schema).ok).toBe(false);
    const other = tempDir();
    chmodSync(other, 0o777);
    outputVerdictFile(join(other, 'catalog'), other).save();
    expect(existsSync(join(other, 'catalog', 'output-verdicts.json'))).toBe(false);
  });
});
