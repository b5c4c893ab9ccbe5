/**
 * Clean text: what is left of an upstream's string once everything a reader cannot see, or a terminal
 * would obey, is removed. Pure. The rules and their reasons are in `docs/security.md` ("Clean text
 * and fenced instructions"); the hostile inputs they answer are in `test/trust/clean.test.ts`.
 */

/** What {@link cleanText} removes, by kind. */
export interface RemovedCounts {
  /** C0 controls (but tab and line feed where lines are kept), DEL, C1, a lone carriage return. */
  control: number;
  /** Whole ANSI/ECMA-48 escape sequences: CSI, OSC, DCS/SOS/PM/APC strings, two- and three-byte escapes. */
  escape: number;
  /** Unicode tag characters U+E0000–E007F (invisible ASCII: a hidden sentence a model still reads). */
  tag: number;
  /** Bidirectional controls U+202A–202E, U+2066–2069, U+200E, U+200F, U+061C (text shown out of order). */
  bidi: number;
  /**
   * Zero-width and other invisible characters: U+200B–200D, U+2060–2064, U+FEFF, U+180E, the soft hyphen
   * U+00AD, U+034F and the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, and a variation
   * selector that follows no visible character or another selector (a run of them carries hidden bytes).
   */
  zeroWidth: number;
}

/** The cleaned text and what was removed from it. */
export interface Cleaned {
  readonly text: string;
  readonly removed: RemovedCounts;
}

/** How {@link cleanText} treats line structure. */
export interface CleanOptions {
  /**
   * `true` (default): `\n` and `\t` stay, `\r\n` and U+2028/U+2029 become `\n`. `false`: every line
   * break and tab becomes one space, for one-line text (a title, a parameter name, an enum value).
   */
  readonly lines?: boolean;
}

/** A count with nothing removed. */
export function noneRemoved(): RemovedCounts {
  return { control: 0, escape: 0, tag: 0, bidi: 0, zeroWidth: 0 };
}

/** Characters removed in all. */
export function removedTotal(removed: RemovedCounts): number {
  return removed.control + removed.escape + removed.tag + removed.bidi + removed.zeroWidth;
}

/** Adds `more` into `into` (mutates and returns `into`). */
export function addRemoved(into: RemovedCounts, more: RemovedCounts): RemovedCounts {
  into.control += more.control;
  into.escape += more.escape;
  into.tag += more.tag;
  into.bidi += more.bidi;
  into.zeroWidth += more.zeroWidth;
  return into;
}

/** `3 escape sequences, 12 tag characters`: the non-zero counts, for a warning; '' when none. */
export function describeRemoved(removed: RemovedCounts): string {
  const parts: string[] = [];
  const say = (n: number, one: string, many: string): void => void (n > 0 && parts.push(`${n} ${n === 1 ? one : many}`));
  say(removed.escape, 'escape sequence', 'escape sequences');
  say(removed.control, 'control character', 'control characters');
  say(removed.tag, 'tag character', 'tag characters');
  say(removed.bidi, 'bidi control', 'bidi controls');
  say(removed.zeroWidth, 'zero-width character', 'zero-width characters');
  return parts.join(', ');
}

/**
 * The one warning for what cleaning removed from a server's `what` (its tools' text, its instructions):
 * counts per kind, never the characters.
 */
export function cleanedWarning(server: string, what: string, removed: RemovedCounts): string {
  return `upstream "${server}": removed ${describeRemoved(removed)} from ${what} (hidden or terminal-control text; see docs/security.md)`;
}

/**
 * Anything that may need removing: C0/DEL/C1, U+00AD, U+034F, U+061C, U+115F, U+1160, U+180E,
 * U+200B–200F, U+2028–202E, U+2060–2069, U+3164, U+FFA0, variation selectors, U+FEFF and (as surrogate pairs) tags U+E0000–E007F and selectors U+E0100–E01EF.
 * Text without a match is returned as is, the common case, at the cost of one regex test. Also what
 * may split a credential unseen (upstream/failure.ts `withoutSplitSecrets`).
 */
export const SUSPECT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\u3164\ufe00-\ufe0f\ufeff\uffa0]|\r|\udb40[\udc00-\udc7f\udd00-\uddef]/;
const LINE_CHARS = /[\n\t]/;

/**
 * An escape sequence starting at `text[at]` (ESC, or the C1 CSI/OSC/DCS… introducers): its length in
 * code units, or 0 when `text[at]` starts none. ECMA-48: CSI = ESC `[` (or U+009B), parameter bytes
 * 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E; OSC/DCS/SOS/PM/APC = ESC `]`/`P`/`X`/`^`/`_`
 * (or U+009D/0090/0098/009E/009F) up to BEL or ST (ESC `\` or U+009C); other escapes = ESC, intermediates,
 * one final byte 0x30–0x7E. An unterminated string or CSI is not a sequence: its ESC goes as a control (the rest is
 * then plain text, harmless without the ESC).
 */
function escapeLength(text: string, at: number): number {
  const c = text.charCodeAt(at);
  let i: number;
  let kind: 'csi' | 'string' | 'other';
  if (c === 0x1b) {
    const next = text.charCodeAt(at + 1);
    if (next === 0x5b) (kind = 'csi'), (i = at + 2);
    else if (next === 0x5d || next === 0x50 || next === 0x58 || next === 0x5e || next === 0x5f) (kind = 'string'), (i = at + 2);
    else (kind = 'other'), (i = at + 1);
  } else if (c === 0x9b) (kind = 'csi'), (i = at + 1);
  else if (c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) (kind = 'string'), (i = at + 1);
  else return 0;
  if (kind === 'string') {
    for (let j = i; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === 0x07 || d === 0x9c) return j + 1 - at;
      if (d === 0x1b) return text.charCodeAt(j + 1) === 0x5c ? j + 2 - at : 0;
    }
    return 0;
  }
  if (kind === 'csi') {
    let j = i;
    while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
    while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
    const final = text.charCodeAt(j);
    return final >= 0x40 && final <= 0x7e ? j + 1 - at : 0;
  }
  let j = i;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  const final = text.charCodeAt(j);
  return final >= 0x30 && final <= 0x7e ? j + 1 - at : 0;
}

const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
/** A letter or mark of a script that needs joiners (Arabic, Indic, Persian…): not Latin, not Common. */
const JOINING_LETTER = /^(?![\p{Script=Latin}\p{Script=Common}])[\p{L}\p{M}]$/u;
const VARIATION_SELECTOR = /^[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]$/u;
const SKIN_TONE = /^[\u{1f3fb}-\u{1f3ff}]$/u;

/** The code point before `text[at]` (undefined at the start). */
function before(text: string, at: number): string | undefined {
  if (at === 0) return undefined;
  const low = text.charCodeAt(at - 1);
  if (at >= 2 && low >= 0xdc00 && low <= 0xdfff) {
    const high = text.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(at - 2, at);
  }
  return text[at - 1];
}

/** The code point at `text[at]` (undefined past the end). */
function codePointString(text: string, at: number): string | undefined {
  const cp = text.codePointAt(at);
  return cp === undefined ? undefined : String.fromCodePoint(cp);
}

/**
 * Whether the joiner at `text[at]`, after the text `kept` so far, joins: ZWJ between two pictographs (`👨‍👩‍👧`, a selector or skin tone
 * before it allowed), ZWJ or ZWNJ between two letters of a script that uses them (Persian `می‌خواهم`,
 * Devanagari half forms). Anywhere else (between Latin letters, beside another invisible character) it
 * joins nothing a reader sees and is removed: a run of them encodes hidden bits.
 */
function joins(kept: string, text: string, at: number, zwj: boolean): boolean {
  const next = codePointString(text, at + 1);
  if (next === undefined) return false;
  let prevAt = kept.length;
  let prev = before(kept, prevAt);
  if (zwj && prev !== undefined && (VARIATION_SELECTOR.test(prev) || SKIN_TONE.test(prev))) {
    prevAt -= prev.length;
    prev = before(kept, prevAt);
  }
  if (prev === undefined) return false;
  if (zwj && PICTOGRAPHIC.test(prev) && PICTOGRAPHIC.test(next)) return true;
  return JOINING_LETTER.test(prev) && JOINING_LETTER.test(next);
}

/**
 * `text` without controls, escape sequences, tag characters, bidi controls and zero-width characters,
 * and the count of each kind removed (see {@link RemovedCounts}; an escape sequence counts once however
 * long). With `lines` (default) `\n` and `\t` stay; `\r\n` and U+2028/U+2029 become `\n` (not counted:
 * Windows line ends are ordinary). A variation selector stays after a visible character (emoji
 * presentation `❤️`, an ideographic variant) but not after another selector or at a line start.
 * Kept whole: every letter, mark, emoji (ZWJ sequences included) and punctuation. Idempotent: cleaning
 * clean text changes nothing and counts nothing. Linear in the length.
 */
export function cleanText(text: string, options: CleanOptions = {}): Cleaned {
  const lines = options.lines !== false;
  const removed = noneRemoved();
  if (!SUSPECT.test(text) && (lines || !LINE_CHARS.test(text))) return { text, removed };
  let out = '';
  let i = 0;
  const suspect = new RegExp(SUSPECT.source, 'g');
  while (i < text.length) {
    // Plain runs are copied whole; only a suspect character is looked at one by one.
    suspect.lastIndex = i;
    const found = suspect.exec(text);
    const at = found === null ? text.length : found.index;
    if (at > i) {
      out += lines ? text.slice(i, at) : text.slice(i, at).replace(/[\n\t]/g, ' ');
      i = at;
      if (i >= text.length) break;
    }
    const c = text.charCodeAt(i);
    const escape = c === 0x1b || (c >= 0x90 && c <= 0x9f) ? escapeLength(text, i) : 0;
    if (escape > 0) {
      removed.escape += 1;
      i += escape;
      continue;
    }
    if (c === 0x0d) {
      const pair = text.charCodeAt(i + 1) === 0x0a;
      if (pair) out += lines ? '\n' : ' ';
      else removed.control += 1;
      i += pair ? 2 : 1;
      continue;
    }
    if (c === 0x2028 || c === 0x2029) {
      out += lines ? '\n' : ' ';
      i += 1;
      continue;
    }
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      removed.control += 1;
      i += 1;
      continue;
    }
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200e || c === 0x200f || c === 0x061c) {
      removed.bidi += 1;
      i += 1;
      continue;
    }
    if (c === 0x200c || c === 0x200d) {
      if (joins(out, text, i, c === 0x200d)) out += text[i];
      else removed.zeroWidth += 1;
      i += 1;
      continue;
    }
    // Invisible too: the soft hyphen, the combining grapheme joiner and the Hangul fillers split words the model still reads whole.
    if (c === 0x200b || (c >= 0x2060 && c <= 0x2064) || c === 0xfeff || c === 0x180e || c === 0x00ad || c === 0x034f || c === 0x115f || c === 0x1160 || c === 0x3164 || c === 0xffa0) {
      removed.zeroWidth += 1;
      i += 1;
      continue;
    }
    if (c === 0xdb40 && text.charCodeAt(i + 1) <= 0xdc7f) {
      removed.tag += 1;
      i += 2;
      continue;
    }
    // A variation selector (the only suspect left): kept after a visible character.
    const char = codePointString(text, i) as string;
    const prev = before(out, out.length);
    if (prev === undefined || VARIATION_SELECTOR.test(prev) || /^\s$/u.test(prev)) removed.zeroWidth += 1;
    else out += char;
    i += char.length;
  }
  return { text: out, removed };
}
