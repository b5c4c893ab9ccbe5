/**
 * Structural checks on parsed JSON, shared by the hot-path shortcuts that stand in for a schema parse
 * (jsonRpcShape.ts, the stdio call lane, direct upstream calls). Pure.
 */

/** Whether `value` is a plain object (an object literal or `JSON.parse` output): not null, an array or a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Whether every own enumerable key of `value` is in `allowed`. */
export function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}
