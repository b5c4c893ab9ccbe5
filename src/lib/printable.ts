/**
 * Text from outside (an upstream's error, a file another process wrote) made safe to print as one
 * line on a terminal or in a client's log: line breaks and tabs become spaces, every other control
 * character (C0, DEL, C1, whose ESC and CSI start ANSI sequences) and the Unicode line and paragraph
 * separators are written as `\uXXXX`, and the result is clipped. Pure. Source: breaker5 (an
 * upstream's error with ANSI escapes and a `\r` reached every relayed client's stderr as is, or was
 * dropped whole).
 */

/** Characters written as `\uXXXX`: C0 but tab and line breaks, DEL, C1, U+2028 and U+2029. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * `text` as one printable line of at most `maxChars` UTF-16 code units (a longer one ends with `…`,
 * never cut inside a surrogate pair): `\r\n`, `\r`, `\n` and tabs as spaces, other control
 * characters escaped.
 */
export function printableLine(text: string, maxChars: number): string {
  const flat = text.replace(/\r\n|[\r\n\t]/g, ' ').replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (flat.length <= maxChars) return flat;
  let end = Math.max(0, maxChars - 1);
  // A high surrogate whose low half would be cut off goes too.
  if (end > 0 && /[\ud800-\udbff]/.test(flat[end - 1]!)) end -= 1;
  return `${flat.slice(0, end)}…`;
}
