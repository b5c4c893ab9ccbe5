/**
 * A RegExp engine for ajv whose `test` cannot hang the gateway: an upstream schema's `pattern` such as
 * `(a+)+$` backtracks exponentially on a crafted argument (ReDoS), and ajv runs it on the event loop.
 * Longer inputs are tested inside a `node:vm` context with a time limit, which interrupts the regex.
 * Source: ajv options `code.regExp`; `test/schema/boundedRegExp.test.ts` (a 30-character argument froze every session).
 */
import { createContext, Script } from 'node:vm';

/**
 * Longest time one pattern test may take, in ms. The limit is wall-clock time, so it is set far
 * above what a sane pattern needs even on a loaded machine (at 50 ms a busy 2-core CI machine
 * failed ordinary checks); a crafted argument then costs one second, not the whole gateway.
 */
export const PATTERN_TIMEOUT_MS = 1000;
/** Inputs up to this many characters are tested directly: too short to backtrack for long. */
const DIRECT_MAX_CHARS = 16;

/**
 * What ajv calls a RegExp engine: `(source, flags) → { test }`, with a `code` name used only for
 * standalone code generation (ajv inlines native RegExp when it reads exactly "new RegExp").
 */
export type RegExpEngine = ((source: string, flags: string) => { test(text: string): boolean }) & { code: string };

/**
 * An engine whose `test` returns false (so the value fails `pattern`) when matching takes longer
 * than `timeoutMs`. Construction errors (an invalid pattern) propagate, as with `new RegExp`.
 */
export function boundedRegExp(timeoutMs = PATTERN_TIMEOUT_MS): RegExpEngine {
  const context = createContext({ re: /$^/, text: '' }) as { re: RegExp; text: string };
  const script = new Script('re.test(text)');
  const engine = (source: string, flags: string): { test(text: string): boolean } => {
    const re = new RegExp(source, flags);
    return {
      test(text: string): boolean {
        if (text.length <= DIRECT_MAX_CHARS) return re.test(text);
        context.re = re;
        context.text = text;
        try {
          return script.runInContext(context, { timeout: timeoutMs }) === true;
        } catch {
          return false;
        }
      },
    };
  };
  return Object.assign(engine, { code: 'toolshelf/boundedRegExp' });
}
