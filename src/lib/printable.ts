/**
 * Text from outside (an upstream's error, a file another process wrote) made safe to print as one
 * line on a terminal or in a client's log: line breaks (U+2028/U+2029 too) and tabs become spaces,
 * everything {@link cleanText} removes is removed (escape sequences whole, controls, tag, bidi and
 * zero-width characters), and the result is clipped. Pure. Source: docs/security.md ("Clean text
 * and fenced instructions"); an upstream's error with ANSI escapes and a `\r` reached every relayed
 * client's stderr as is.
 */
import { cleanText } from '../trust/clean.js';

/**
 * `text` as one printable line of at most `maxChars` UTF-16 code units (a longer one ends with `…`,
 * never cut inside a surrogate pair): `\r\n`, `\r`, `\n`, U+2028, U+2029 and tabs as spaces, what
 * {@link cleanText} removes removed.
 */
export function printableLine(text: string, maxChars: number): string {
  const flat = cleanText(text.replace(/\r\n|[\r\n\t\u2028\u2029]/g, ' '), { lines: false }).text;
  if (flat.length <= maxChars) return flat;
  let end = Math.max(0, maxChars - 1);
  // A high surrogate whose low half would be cut off goes too.
  if (end > 0 && /[\ud800-\udbff]/.test(flat[end - 1]!)) end -= 1;
  return `${flat.slice(0, end)}…`;
}
