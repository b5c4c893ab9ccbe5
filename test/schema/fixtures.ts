/** Loads the hand-written schemas in test/fixtures/schemas/ and builds generated adversarial ones. */

import { readFileSync } from 'node:fs';
import type { JsonObject } from '../../src/catalog/types.js';

/** A fixture from test/fixtures/schemas/, parsed fresh on every call (tests may compare identities). */
export function fixture(name: string): JsonObject {
  return JSON.parse(readFileSync(new URL(`../fixtures/schemas/${name}.json`, import.meta.url), 'utf8')) as JsonObject;
}

/** `depth` levels of single-property objects, each described. */
export function deepSchema(depth: number): JsonObject {
  let inner: JsonObject = { type: 'string', description: 'leaf' };
  for (let level = depth; level > 0; level--) {
    inner = { type: 'object', description: `level ${level}`, properties: { [`p${level}`]: inner } };
  }
  return { type: 'object', properties: { top: inner }, required: ['top'] };
}

/** One property whose value is an `anyOf` of `width` distinct object shapes. */
export function wideAnyOf(width: number): JsonObject {
  const branches = Array.from({ length: width }, (_, i) => ({
    type: 'object',
    properties: { [`kind${i}`]: { const: `k${i}` } },
    required: [`kind${i}`],
  }));
  return { type: 'object', properties: { filter: { anyOf: branches }, limit: { type: 'integer' } }, required: ['filter'] };
}

/** `n` bytes of repeated text made of `unit`, cut to whole units. */
export function text(unit: string, n: number): string {
  return unit.repeat(Math.ceil(n / Buffer.byteLength(unit)));
}

const LOREM = 'lorem ipsum dolor sit amet, consectetur adipiscing elit. ';

/** `count` top-level string properties, each with a description of about `descriptionBytes` bytes. */
export function describedProperties(count: number, descriptionBytes: number): JsonObject {
  const properties: JsonObject = {};
  for (let i = 0; i < count; i++) {
    properties[`field_${i}`] = { type: 'string', description: `Field ${i}: ${text(LOREM, descriptionBytes)}` };
  }
  return { type: 'object', properties, required: ['field_0'] };
}

/** `count` described `$defs`, each referring to the next and the last to the first, entered from one property. */
export function defsRing(count: number): JsonObject {
  const $defs: JsonObject = {};
  for (let i = 0; i < count; i++) {
    $defs[`node_${i}`] = {
      type: 'object',
      description: `Node ${i}: ${text(LOREM, 200)}`,
      properties: { next: { $ref: `#/$defs/node_${(i + 1) % count}` }, value: { type: 'string', description: 'Value.' } },
    };
  }
  return { type: 'object', properties: { start: { $ref: '#/$defs/node_0' } }, required: ['start'], $defs };
}

/** `depth` resources nested by `properties`, each with its own `$id`, an anchor, and a reference to an anchor at the bottom. */
export function nestedResources(depth: number): JsonObject {
  let inner: JsonObject = { type: 'string', $anchor: 'leaf' };
  for (let level = 0; level < depth; level++) {
    inner = {
      $id: `https://example.com/level-${level}`,
      $anchor: `level${level}`,
      type: 'object',
      description: text('x', 50),
      properties: { next: inner, leaf: { $ref: '#leaf' } },
    };
  }
  return { type: 'object', properties: { root: inner } };
}

/** `refs` properties, each a reference by `$anchor` to one of `defs` described definitions. */
export function anchorRefs(refs: number, defs: number): JsonObject {
  const $defs: JsonObject = {};
  for (let i = 0; i < defs; i++) $defs[`d${i}`] = { $anchor: `A${i}`, type: 'string', description: text('y', 100) };
  const properties: JsonObject = {};
  for (let i = 0; i < refs; i++) properties[`p${i}`] = { $ref: `#A${i % defs}` };
  return { type: 'object', properties, $defs };
}

/** One required string property whose `enum` holds `count` distinct values `product_0`… */
export function bigEnum(count: number): JsonObject {
  return { type: 'object', properties: { code: { type: 'string', enum: Array.from({ length: count }, (_, i) => `product_${i}`) } }, required: ['code'] };
}

/** Fastest of `times` runs of `run`, in ms: the run least disturbed by other load. */
function fastestMs(run: () => unknown, times: number): number {
  let best = Infinity;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** The calibration input: 2,800 described properties, about 1 MB of JSON. */
const CALIBRATION_SCHEMA = describedProperties(2800, 300);

/**
 * How fast this machine is right now: ms of one fixed, linear piece of work (a JSON round trip of a
 * 1 MB schema), the fastest of three. Load slows it as it slows the work measured beside it.
 */
export function calibrationMs(): number {
  return fastestMs(() => JSON.parse(JSON.stringify(CALIBRATION_SCHEMA)), 3);
}

/**
 * The result of `run` and its time in calibration units ({@link calibrationMs} measured just before,
 * in the same run), so a loaded machine slows both sides alike. Source: docs/development.md.
 */
export function timedAgainstBaseline<T>(run: () => T): { readonly result: T; readonly units: number } {
  const baselineMs = calibrationMs();
  const started = performance.now();
  const result = run();
  return { result, units: (performance.now() - started) / baselineMs };
}
