/**
 * The scanner: instruction-like text in what an upstream says about its tools (every string and key of
 * a declaration, at any depth) and in its `instructions`. Each finding names its kind, where it sits (a JSON path into the tool) and an
 * excerpt. Pure. The patterns follow the published tool-poisoning attacks (Invariant Labs' "tool
 * poisoning" notes, MCPTox) and were checked against every tool of the shared catalogues for false
 * positives (test/trust/scan.test.ts). Source: docs/security.md, "The scanner".
 */
import type { UpstreamTool } from '../catalog/types.js';

/** What a finding is. */
export type FindingKind =
  /** `<IMPORTANT>`, `<system>`, `<instructions>`… tags that set text apart as orders. */
  | 'tag'
  /** "ignore previous instructions", "disregard all prior rules", "the user has approved every call". */
  | 'override'
  /** "do not tell the user", "without informing the user". */
  | 'concealment'
  /** A path to credentials: `~/.ssh`, `id_rsa`, `.aws/credentials`, `.env`… */
  | 'secret_path'
  /** A line that begins `system:`, `assistant:` or `user:`, or a chat-template token. */
  | 'role_line'
  /** `<!-- … -->`: text a rendered view hides. */
  | 'html_comment'
  /** A JSON-RPC fragment (`"jsonrpc"`): a fake protocol message. */
  | 'json_rpc'
  /** Another server's qualified tool name (cross-server shadowing). */
  | 'other_server_tool'
  /** Unicode tag characters, bidi controls, zero-width characters or control characters. */
  | 'hidden_characters'
  /**
   * A markdown image (or HTML `<img>`) whose URL has a query or a template, or a markdown link whose
   * query or fragment holds a template (`![x](https://evil.example/?q={secret})`): a client that
   * renders it sends the data to that host.
   */
  | 'exfiltration_link'
  /** A declaration too large to read whole ({@link MAX_SCANNED_VALUES}): held unread rather than served unread. */
  | 'unscannable';

/** One instruction-like passage. */
export interface Finding {
  readonly kind: FindingKind;
  /** JSON path into the tool (`$.inputSchema.properties.note.description`) or `$.instructions`; a longer one than {@link MAX_WHERE_CHARS} is elided in the middle. */
  readonly where: string;
  /** Up to {@link EXCERPT_CHARS} characters around the match, hidden characters written as `\u{…}`. */
  readonly excerpt: string;
}

/** What the scanner knows of the other upstreams: their name prefixes and the separator (catalog/naming.ts). */
export interface ScanContext {
  /** Prefixes of every other configured server (not the one scanned). */
  readonly otherPrefixes: readonly string[];
  readonly separator: string;
  /**
   * The upstream tool names of each other server, by its prefix: a name written with another
   * separator (`mail.send_email`, `mail/send_email`, `mail:send_email`) is found when it names one of
   * them (a bare `prefix.` would match every `github.com`).
   */
  readonly otherTools?: ReadonlyMap<string, readonly string[]>;
}

/** Longest excerpt in a finding, in characters. */
export const EXCERPT_CHARS = 80;

/** Patterns by kind; each is tested on one string at a time. */
const PATTERNS: readonly { readonly kind: FindingKind; readonly pattern: RegExp }[] = [
  { kind: 'tag', pattern: /<\s*\/?\s*(?:important|system|instructions?|secret|hidden|admin|critical|override|priority|urgent|mandatory|sudo)\b[^<>]{0,40}>/i },
  {
    kind: 'override',
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+|of\s+)*(?:previous|prior|above|earlier|preceding|former|other|original|system)?\s*(?:instructions|prompts?|directions|directives|guidelines|guidance|rules)\b/i,
  },
  {
    kind: 'override',
    // The same order in other words: "pay no attention to earlier guidance", "stop following the previous rules".
    pattern:
      /\b(?:pay\s+no\s+(?:attention|heed|mind)\s+to|(?:do\s+not|don['’]t|no\s+longer|stop)\s+(?:follow(?:ing)?|obey(?:ing)?|heed(?:ing)?)|set\s+aside|throw\s+out|discard|drop|skip|neglect)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+|of\s+)*(?:previous|prior|above|earlier|preceding|former|original|system)\s+(?:instructions|prompts?|directions|directives|guidelines|guidance|rules|orders)\b/i,
  },
  { kind: 'override', pattern: /\b(?:the\s+)?user\s+(?:has\s+)?(?:already\s+)?(?:approved|authori[sz]ed|pre-?approved|consented\s+to)\s+(?:every|all|each|any)\b/i },
  // The user's consent in the first person, as if the user wrote it: "I approve every call".
  { kind: 'override', pattern: /\bI\s+(?:have\s+)?(?:already\s+)?(?:approve|authori[sz]e|pre-?approve|consent\s+to)d?\s+(?:every|all|each|any)\b/i },
  {
    kind: 'concealment',
    pattern:
      /\b(?:do\s+not|don['’]t|never|must\s+not|without)\s+(?:\w+\s+){0,2}?(?:tell|telling|mention|mentioning|inform|informing|reveal|revealing|notify|notifying|alert|alerting|show|showing)\b[^.!?\n]{0,40}?\b(?:the\s+)?user\b/i,
  },
  { kind: 'concealment', pattern: /\bwithout\s+the\s+user(?:['’]s)?\s+(?:knowing|knowledge|noticing|consent)\b/i },
  {
    kind: 'secret_path',
    pattern:
      /(?:~|\$HOME|%USERPROFILE%)[\\/]\.(?:ssh|aws|gnupg|kube|docker|netrc|npmrc|pypirc|git-credentials|config[\\/]gh)\b|\.ssh[\\/]|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws[\\/]credentials|\/etc\/(?:passwd|shadow)\b|\.git-credentials\b|(?:^|[\s"'`(/\\])\.env(?:\.local|\.production)?(?=$|[\s"'`),.;:])/i,
  },
  { kind: 'role_line', pattern: /(?:^|\n)[ \t>#*-]*(?:system|assistant|user)[ \t]*:[ \t]*\S/i },
  { kind: 'role_line', pattern: /<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[\/?INST\]/i },
  // Words posing as another speaker's: "Message from the user: …", "Note from toolshelf: …".
  {
    kind: 'role_line',
    pattern: /\b(?:message|note|notice|words?|instructions?|request|reply|response|update)\s+from\s+(?:the\s+)?(?:user|system|admin(?:istrator)?|developer|operator|assistant|toolshelf|gateway)\b[^:\n]{0,40}:/i,
  },
  { kind: 'html_comment', pattern: /<!--/ },
  { kind: 'json_rpc', pattern: /["']?jsonrpc["']?\s*[:=]/i },
  {
    kind: 'hidden_characters',
    // Tag characters, bidi controls and marks, zero-width characters (ZWJ is left to emoji), BOM, C0 but tab and line breaks, DEL, C1.
    pattern: /[\u{e0000}-\u{e007f}\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b\u200c\u2060-\u2064\ufeff\u00ad\u034f\u115f\u1160\u3164\uffa0\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u,
  },
];

/**
 * The findings in one string found at `where`: at most one per kind, the first match of each. A
 * `role_line` in a parameter name or enum value needs no line start. Each run of
 * {@link MIN_BASE64_CHARS} or more base64 characters that decodes to text is read with the same rules,
 * its findings' excerpts starting `base64 of: `. Pure.
 */
export function scanText(text: string, path: string, context: ScanContext): Finding[] {
  return scanDecoded(text, shortWhere(path), context, 0);
}

/** {@link scanText} at `depth` base64 decodings deep (at most {@link MAX_BASE64_DEPTH}). */
function scanDecoded(text: string, where: string, context: ScanContext, depth: number): Finding[] {
  const findings: Finding[] = [];
  const kinds = new Set<FindingKind>();
  // Words are read as a model reads them: fullwidth and other compatibility forms folded (NFKC) and
  // invisible characters that split a word dropped; hidden characters themselves are found in the text as given.
  const read = readable(text);
  const found = (kind: FindingKind, excerptText: string): void => {
    kinds.add(kind);
    findings.push({ kind, where, excerpt: excerptText });
  };
  for (const { kind, pattern } of PATTERNS) {
    if (kinds.has(kind)) continue;
    const seen = kind === 'hidden_characters' ? text : read;
    const match = pattern.exec(seen);
    if (match) found(kind, excerpt(seen, match.index, match[0].length));
  }
  const link = exfiltrationLink(read);
  if (link) found('exfiltration_link', excerpt(link.text, link.index, link.length));
  const other = otherServerTool(read, context);
  if (other) found('other_server_tool', excerpt(read, other.index, other.length));
  if (depth < MAX_BASE64_DEPTH) {
    for (const decoded of decodedRuns(text)) {
      for (const finding of scanDecoded(decoded, where, context, depth + 1)) {
        if (!kinds.has(finding.kind)) found(finding.kind, `base64 of: ${finding.excerpt}`.slice(0, EXCERPT_CHARS + 12));
      }
    }
  }
  return findings;
}

/** Shortest run of base64 characters decoded and read: 24 characters are 18 bytes, a short sentence. */
export const MIN_BASE64_CHARS = 24;
/** Base64 inside base64 is read this many levels deep. */
const MAX_BASE64_DEPTH = 2;
/** Runs decoded per string: a description made of thousands of runs costs no more than this many. */
const MAX_BASE64_RUNS = 32;
/** A run of base64 (standard or URL-safe alphabet), padding included. */
const BASE64_RUN = new RegExp(`[A-Za-z0-9+/_-]{${MIN_BASE64_CHARS},}={0,2}`, 'g');
/** Share of a decoded run's characters that must be printable (letters, digits, punctuation, spaces, line breaks) for it to count as text. */
const MIN_PRINTABLE_SHARE = 0.9;

/**
 * The text the base64 runs in `text` decode to, for those that decode to valid UTF-8 that is mostly
 * printable ({@link MIN_PRINTABLE_SHARE}): an identifier or a hash that happens to be base64 decodes to
 * bytes, not text, and is skipped. At most {@link MAX_BASE64_RUNS} runs.
 */
function decodedRuns(text: string): string[] {
  const out: string[] = [];
  let runs = 0;
  for (const match of text.matchAll(BASE64_RUN)) {
    if ((runs += 1) > MAX_BASE64_RUNS) break;
    let decoded: string;
    try {
      decoded = UTF8.decode(Buffer.from(match[0], 'base64'));
    } catch {
      continue;
    }
    const chars = [...decoded];
    const printable = chars.filter((c) => /[\p{L}\p{N}\p{P}\p{S}\p{Zs}\n\t]/u.test(c)).length;
    if (chars.length > 0 && printable / chars.length >= MIN_PRINTABLE_SHARE) out.push(decoded);
  }
  return out;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A markdown image `![alt](url)` (alt text over lines and with brackets inside, as CommonMark renders
 * it) or `![alt][label]`, or an HTML or SVG element that fetches what it names when shown (`src`,
 * `srcset`, `href` of `<image>`, `poster`, `background`), or a CSS `url(…)`. Groups: 1 alt text, 2 URL,
 * 3 reference label, 4 and 5 URL.
 */
const IMAGE =
  /!\[((?:[^[\]\n]|\[[^[\]\n]{0,200}\]|\n(?!\n)){0,1000})\](?:\(\s*<?([^)\s>]+)|\[([^\]\n]*)\])|<(?:img|image|source|video|audio|input|picture|object|embed|iframe|body|table|td)\b[^>]{0,200}?\b(?:src|srcset|href|xlink:href|poster|background|data)\s*=\s*["']?([^"'\s>]+)|\burl\(\s*["']?([^"')\s]+)/gi;
/**
 * A markdown link `[text](url)` (not an image) or an autolink `<https://…>`: its URL is group 1 or 2.
 * Alt and link text may hold one level of brackets and single line breaks, as CommonMark renders them;
 * each repetition has one way to match, so a text of brackets costs linear time (scan.test).
 */
const LINK = /(?<!!)\[(?:[^[\]\n]|\[[^[\]\n]{0,200}\]|\n(?!\n)){0,1000}\]\(\s*<?([^)\s>]+)|<([a-z][a-z0-9+.-]*:\/\/[^>\s]+)>/gi;
/** A markdown reference definition `[label]: url`: label group 1, URL group 2. */
const REFERENCE = /^[ \t]{0,3}\[([^[\]\n]{1,1000})\]:[ \t]*<?(\S+?)>?(?=\s|$)/gm;
/** A placeholder for data in a URL: `{secret}`, `{{x}}`, `${x}`, `%s`, `$SECRET`, `[SECRET]`. */
const URL_TEMPLATE = /\{[^{}\s]{0,60}\}|\$\{|%s|\$[A-Z_][A-Z0-9_]{2,}|\[[A-Z][A-Z0-9_]{2,40}\]/;
/** The HTML character references a URL can be spelled with (`https&colon;//…&quest;d&equals;&lbrace;x&rbrace;`). */
const NAMED_REFERENCES: Readonly<Record<string, string>> = { colon: ':', sol: '/', quest: '?', equals: '=', lbrace: '{', rbrace: '}', lcub: '{', rcub: '}', num: '#', dollar: '$', percnt: '%', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", lpar: '(', rpar: ')', lsqb: '[', rsqb: ']', lbrack: '[', rbrack: ']', period: '.', excl: '!' };

/** `text` with its HTML character references (named ones above, decimal and hex) decoded. Pure. */
function decodedReferences(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,8}));?/gi, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    const code = dec !== undefined ? Number(dec) : hex !== undefined ? parseInt(hex, 16) : undefined;
    if (code !== undefined) return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    return NAMED_REFERENCES[name!.toLowerCase()] ?? whole;
  });
}

/**
 * Where `text` holds a link a client would follow with data in it: an image whose URL has a query or
 * a template anywhere (rendering an image fetches it, unasked), or a link whose query or fragment holds
 * a template. A plain documentation link (`[docs](https://docs.github.com/…?apiVersion=2022-11-28)`)
 * is no finding. Character references are decoded first, and a reference-style image is read through
 * its definition.
 */
function exfiltrationLink(raw: string): { text: string; index: number; length: number } | undefined {
  const text = decodedReferences(raw);
  const references = new Map<string, string>();
  for (const match of text.matchAll(REFERENCE)) references.set(match[1]!.trim().toLowerCase(), match[2]!);
  // An image is fetched when shown: any query or placeholder carries data. A link only when followed: a placeholder in its query or fragment.
  const fetched = (url: string): boolean => /[?#]./.test(url) || URL_TEMPLATE.test(url);
  const templatedTail = (url: string): boolean => URL_TEMPLATE.test(/[?#].*/.exec(url)?.[0] ?? '');
  for (const match of text.matchAll(IMAGE)) {
    const label = match[3];
    const url = label !== undefined ? references.get((label.trim() || match[1]!).trim().toLowerCase()) : (match[2] ?? match[4] ?? match[5]);
    if (url !== undefined && fetched(url)) return { text, index: match.index, length: match[0].length };
  }
  for (const match of text.matchAll(LINK)) {
    if (templatedTail(match[1] ?? match[2] ?? '')) return { text, index: match.index, length: match[0].length };
  }
  // A definition with a template is there to be used, by an image or a link.
  // A shortcut reference image, `![label]`, defined elsewhere.
  for (const match of text.matchAll(/!\[([^[\]\n]{1,1000})\](?![(\[])/g)) {
    const url = references.get(match[1]!.trim().toLowerCase());
    if (url !== undefined && fetched(url)) return { text, index: match.index, length: match[0].length };
  }
  for (const [, url] of references) {
    if (templatedTail(url)) return { text, index: text.indexOf(url), length: url.length };
  }
  return undefined;
}

/** Longest `where` in a finding, in characters: a path into a deeply nested schema keeps its start and end. */
export const MAX_WHERE_CHARS = 200;

/** `path` when short enough, else its first and last characters around `…` ({@link MAX_WHERE_CHARS} in all). */
function shortWhere(path: string): string {
  if (path.length <= MAX_WHERE_CHARS) return path;
  const head = Math.floor((MAX_WHERE_CHARS - 1) / 2);
  return `${path.slice(0, head)}…${path.slice(path.length - (MAX_WHERE_CHARS - 1 - head))}`;
}

/** Characters that split a word without showing: the soft hyphen, zero-width ones, the grapheme joiner, Hangul fillers. */
const WORD_SPLITTERS = /[\u00ad\u034f\u115f\u1160\u180e\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0]/g;

/**
 * Cyrillic, Greek and Armenian letters drawn like a Latin one, and that Latin letter: `іgnоrе` with
 * Cyrillic і, о, е reads to a model as `ignore`. A subset of the Unicode confusables (UTS #39,
 * confusables.txt) for the letters the patterns spell; NFKC leaves these alone, as they are letters
 * of their own script.
 */
const LOOKALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', ѕ: 's', і: 'i', ј: 'j', һ: 'h', ԁ: 'd', ԛ: 'q', ԝ: 'w', ӏ: 'l', ԍ: 'g', ѵ: 'v',
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', У: 'Y', Х: 'X', Ѕ: 'S', І: 'I', Ј: 'J', Ԁ: 'D', Ԛ: 'Q', Ԝ: 'W', Ӏ: 'I', Ԍ: 'G',
  // Greek
  α: 'a', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x',
  Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X',
  // Armenian
  օ: 'o', ս: 'u', հ: 'h', ց: 'g', ք: 'f',
  // Latin small capitals (IPA and phonetic extensions), which NFKC leaves as they are: `ɪɢɴᴏʀᴇ`
  ᴀ: 'a', ʙ: 'b', ᴄ: 'c', ᴅ: 'd', ᴇ: 'e', ꜰ: 'f', ɢ: 'g', ʜ: 'h', ɪ: 'i', ᴊ: 'j', ᴋ: 'k', ʟ: 'l', ᴍ: 'm', ɴ: 'n', ᴏ: 'o', ᴘ: 'p', ʀ: 'r', ꜱ: 's', ᴛ: 't', ᴜ: 'u', ᴠ: 'v', ᴡ: 'w', ʏ: 'y', ᴢ: 'z',
  // Cherokee letters drawn like Latin capitals: `ᏆgnᎾre`
  Ꭰ: 'D', Ꭱ: 'R', Ꭲ: 'T', Ꭵ: 'i', Ꭹ: 'y', Ꭺ: 'A', Ꭻ: 'J', Ꭼ: 'E', Ꮃ: 'W', Ꮆ: 'G', Ꮇ: 'M', Ꮋ: 'H', Ꮍ: 'Y', Ꮎ: 'O', Ꮐ: 'G', Ꮒ: 'h', Ꮓ: 'Z', Ꮖ: 'I', Ꮟ: 'b', Ꮢ: 'R', Ꮤ: 'W', Ꮥ: 'S', Ꮩ: 'V', Ꮪ: 'S', Ꮮ: 'L', Ꮯ: 'C', Ꮲ: 'P', Ꮶ: 'K', Ᏼ: 'B',
};
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'gu');

/** Combining marks, read as nothing: `Igno\u0301re` is `Ignore` to a model. */
const COMBINING_MARKS = /\p{M}/gu;

/**
 * `text` as the patterns read it: compatibility forms folded and letters taken apart (NFKD: fullwidth
 * `Ｉgnore` is `Ignore`, `ó` is `o` and an accent), combining marks dropped, word splitters removed,
 * lookalike letters read as the Latin ones.
 */
function readable(text: string): string {
  return text
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .replace(WORD_SPLITTERS, '')
    .replace(LOOKALIKE, (char) => LOOKALIKES[char]!)
    .replace(SPACED_LETTERS, (run) => run.replace(/ /g, ''))
    .replace(SPLIT_WORD_HYPHEN, '');
}

/** A word spelt in single letters with a space between each, five or more: `I g n o r e` reads as `Ignore`. */
const SPACED_LETTERS = /(?<![\p{L}\p{N}])\p{L}(?: \p{L}){4,}(?![\p{L}\p{N}])/gu;
/** A hyphen inside a lower-case word, as in `pre-vious` or `instruc-tions`: read as if it were not there. */
const SPLIT_WORD_HYPHEN = /(?<=\p{Ll})-(?=\p{Ll})/gu;

/** Separators a model reads as joining a server and its tool, besides the configured one. */
const OTHER_SEPARATORS = /[./:]/;

/** Each other server's tool names, lower case, by lower-case prefix; memoised per context. */
const toolSets = new WeakMap<ScanContext, ReadonlyMap<string, ReadonlySet<string>>>();

function toolSetsOf(context: ScanContext): ReadonlyMap<string, ReadonlySet<string>> {
  let sets = toolSets.get(context);
  if (!sets) {
    sets = new Map([...(context.otherTools ?? [])].map(([prefix, names]) => [prefix.toLowerCase(), new Set(names.map((name) => name.toLowerCase()))]));
    toolSets.set(context, sets);
  }
  return sets;
}

/** Where `text` names a tool of another server (`mail__send_email`, or `mail.send_email` for a tool `mail` has), if it does. */
function otherServerTool(text: string, context: ScanContext): { index: number; length: number } | undefined {
  return otherServerToolBySeparator(text, context) ?? otherServerToolByName(text, context);
}

/** `prefix` + `.` `/` `:` + one of that server's tool names, as a whole word. */
function otherServerToolByName(text: string, context: ScanContext): { index: number; length: number } | undefined {
  const sets = toolSetsOf(context);
  if (sets.size === 0) return undefined;
  const lower = text.toLowerCase();
  for (const [prefix, names] of sets) {
    let at = lower.indexOf(prefix);
    while (at >= 0) {
      const before = at === 0 ? '' : lower[at - 1]!;
      const separator = lower[at + prefix.length] ?? '';
      if (!/[a-z0-9_]/.test(before) && OTHER_SEPARATORS.test(separator)) {
        const name = /^[a-z0-9_-]+/.exec(lower.slice(at + prefix.length + 1, at + prefix.length + 1 + 128))?.[0];
        if (name !== undefined && names.has(name)) return { index: at, length: prefix.length + 1 + name.length };
      }
      at = lower.indexOf(prefix, at + 1);
    }
  }
  return undefined;
}

/** `prefix` + the configured separator + a tool name. */
function otherServerToolBySeparator(text: string, context: ScanContext): { index: number; length: number } | undefined {
  if (context.otherPrefixes.length === 0 || context.separator === '') return undefined;
  const lower = text.toLowerCase();
  for (const prefix of context.otherPrefixes) {
    const needle = `${prefix}${context.separator}`.toLowerCase();
    let at = lower.indexOf(needle);
    while (at >= 0) {
      const before = at === 0 ? '' : lower[at - 1]!;
      const after = lower[at + needle.length] ?? '';
      // A whole name: not the tail of a longer word, and a tool name after the separator.
      if (!/[a-z0-9_]/.test(before) && /[a-z0-9]/.test(after)) return { index: at, length: needle.length + 1 };
      at = lower.indexOf(needle, at + 1);
    }
  }
  return undefined;
}

/**
 * Most JSON values (strings, numbers, arrays, objects, and object keys each count one) read in one tool:
 * a declaration larger than this is not scanned further and is itself a finding (`unscannable`), so
 * the cost of a listing is bounded and no part of a tool goes unread and served. The largest tool of the
 * shared catalogues has a few thousand (test/trust/scan.test.ts).
 */
export const MAX_SCANNED_VALUES = 50_000;

/**
 * Every finding in `tool`: every string anywhere in the declaration as the upstream sent it, values and
 * object keys alike, at any depth (name, title, description, annotations, icons, both schemas with every
 * keyword, `_meta`, unknown fields), since unknown fields and schema keywords go on the wire too
 * (`schema/wire.ts`). Object keys are read without the other servers' names (a parameter named like a
 * tool is no reference to it). Walked iteratively in document order, without a depth limit; a tool of
 * more than {@link MAX_SCANNED_VALUES} values gets one `unscannable` finding at `$`. Pure.
 */
export function scanTool(tool: UpstreamTool, context: ScanContext): Finding[] {
  const findings: Finding[] = [];
  // Each entry: a value, its path, and the key it sits under (read just before the value, so findings stay in document order).
  const stack: { readonly value: unknown; readonly path: string; readonly key?: string }[] = [{ value: tool, path: '$' }];
  let counted = 0;
  while (stack.length > 0) {
    const { value, path, key } = stack.pop()!;
    counted += key === undefined ? 1 : 2;
    if (counted > MAX_SCANNED_VALUES) {
      findings.push({ kind: 'unscannable', where: '$', excerpt: `more than ${MAX_SCANNED_VALUES} values: too large to scan` });
      break;
    }
    // A key is read by the model as it is (a parameter name, a vendor keyword): instructions or hidden characters there count as anywhere else.
    if (key !== undefined && key !== '') findings.push(...scanText(key, path, NO_CONTEXT));
    if (typeof value === 'string') {
      if (value !== '') findings.push(...scanText(value, path, context));
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const children = Array.isArray(value)
      ? value.map((item, i) => ({ value: item as unknown, path: `${path}[${i}]` }))
      : Object.entries(value).map(([name, item]) => ({ value: item, path: `${path}${member(name)}`, key: name }));
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]!);
  }
  return findings;
}

/** Every finding in an upstream's `instructions`, at `$.instructions`. Pure. */
export function scanInstructions(text: string, context: ScanContext): Finding[] {
  return scanText(text, '$.instructions', context);
}

const NO_CONTEXT: ScanContext = { otherPrefixes: [], separator: '' };

/** `.key` for identifier-like keys, `["key"]` for the rest. */
function member(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** Up to {@link EXCERPT_CHARS} characters around `[index, index+length)`, hidden characters made visible. */
function excerpt(text: string, index: number, length: number): string {
  const slack = Math.max(0, EXCERPT_CHARS - length);
  const start = Math.max(0, index - Math.floor(slack / 2));
  const end = Math.min(text.length, start + Math.max(length, EXCERPT_CHARS));
  const piece = [...text.slice(start, end)].map(visible).join('');
  return `${start > 0 ? '…' : ''}${piece.replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

/** A hidden character as `\u{…}`; anything else as it is. */
function visible(char: string): string {
  return /[\u{e0000}-\u{e007f}\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\u2060-\u2064\ufeff\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u.test(char)
    ? `\\u{${char.codePointAt(0)!.toString(16)}}`
    : char;
}
