/**
 * Judging one upstream's listing against its pins: which tools are served, which are held for review
 * and why, which warnings to give, and the pins to keep afterwards. Pure: the pin store (trust/store.ts)
 * reads and writes the files. Source: docs/security.md, "Pins, quarantine and review" and "The scanner".
 */
import type { UpstreamTool } from '../catalog/types.js';
import { stableHash } from '../lib/hash.js';
import { pinOf, type PinnedText, type ToolPin } from './pin.js';
import { scanInstructions, scanTool, type Finding, type ScanContext } from './scan.js';

/** What to do about a tool that differs from its pin: hold it (default), serve it with a warning, or not check. */
export type ChangePolicy = 'quarantine' | 'warn' | 'off';
/** What to do about a tool a pinned server adds later: pin it with a warning (default) or hold it too. */
export type NewToolPolicy = 'pin' | 'hold';
/** What to do about text the scanner flags: hold it (default), only warn, or not scan. */
export type ScannerPolicy = 'hold' | 'warn' | 'off';

/** The trust settings that apply to one server (config `trust`, over it the server's own `trust`). */
export interface TrustPolicy {
  readonly changes: ChangePolicy;
  readonly newTools: NewToolPolicy;
  readonly scanner: ScannerPolicy;
}

/** Why a tool is held: it differs from its pin, it is new on a server that holds new tools, or the scanner flagged it. */
export type HoldReason = 'changed' | 'new' | 'flagged';

/** A version of a tool that waits for review: its pin as listed now, why, and what the scanner found in it. */
export interface HeldVersion extends ToolPin {
  readonly reason: HoldReason;
  readonly findings: readonly Finding[];
  /** A person looked at this very version and rejected it: it stays held, and is no longer news. */
  readonly rejected?: true;
}

/** Instructions the scanner flagged, held out of toolshelf's own until approved. */
export interface HeldInstructions {
  readonly hash: string;
  readonly text: string;
  readonly findings: readonly Finding[];
}

/** One server's pins as kept in the state folder. */
export interface ServerPins {
  /** The approved (or first-seen) version of each tool, by upstream name. */
  readonly tools: Readonly<Record<string, ToolPin>>;
  /** Versions waiting for review, by upstream name (what `toolshelf review` shows and `approve` pins). */
  readonly held: Readonly<Record<string, HeldVersion>>;
  /** Hash of flagged instructions a person approved. */
  readonly instructions?: { readonly hash: string };
  readonly heldInstructions?: HeldInstructions;
  /** Versions a person rejected on review, by upstream name: the hash of each (trust/judge.ts {@link reject}). */
  readonly rejected?: Readonly<Record<string, string>>;
}

/** Where a listing came from: a live upstream, or the catalogue cache (never a source of trust). */
export type ListingSource = 'live' | 'cache';

/** One warning about a tool or the instructions, with what makes it distinct (a repeated key is not warned again). */
export interface TrustWarning {
  readonly key: string;
  readonly text: string;
  /** The tool's upstream name; absent for instructions. */
  readonly tool?: string;
  readonly reason: HoldReason | 'pinned_new';
  /** True when the tool (or instructions) is held; false for a warning only. */
  readonly held: boolean;
}

/** The verdict on one listing. */
export interface Judgement {
  /** Held tools by upstream name: out of the manifest, search, promotion and calls. */
  readonly held: ReadonlyMap<string, HeldVersion>;
  /** True when the instructions are left out of toolshelf's own. */
  readonly instructionsHeld: boolean;
  readonly warnings: readonly TrustWarning[];
  /** The pins to keep: equal (`===`) to the ones given when nothing changed. */
  readonly pins: ServerPins | undefined;
}

/** What one judgement reads. */
export interface Listing {
  readonly server: string;
  readonly tools: readonly UpstreamTool[];
  readonly instructions?: string;
  readonly source: ListingSource;
}

/**
 * Judges `listing` against `pins` (undefined: the server was never pinned) under `policy`:
 * - a tool whose hash equals its pin is served, unless the scanner flags it and no person approved that version;
 * - a tool that differs from its pin is held (`changes: quarantine`), or served with a warning and pinned anew (`warn`);
 * - a server's first live listing is pinned whole (trust on first use), and a tool a pinned server adds
 *   later is pinned with a warning (`newTools: pin`) or held (`hold`);
 * - a flagged tool or flagged instructions are held (`scanner: hold`) or only warned about (`warn`);
 * - a cached listing is checked like a live one but never pinned: a tool it has and the pins lack is
 *   held once the server is pinned, and served unpinned (scanner permitting) before.
 * Pins only change on a live listing, except for the record of what is held. Pure.
 */
export function judgeListing(listing: Listing, pins: ServerPins | undefined, policy: TrustPolicy, context: ScanContext): Judgement {
  const held = new Map<string, HeldVersion>();
  const warnings: TrustWarning[] = [];
  const tools: Record<string, ToolPin> = { ...(pins?.tools ?? {}) };
  let pinsChanged = false;
  const live = listing.source === 'live';
  const { server } = listing;
  const hold = (tool: string, version: ToolPin, reason: HoldReason, findings: readonly Finding[]): void => {
    const rejected = pins?.rejected?.[tool] === version.hash;
    held.set(tool, { hash: version.hash, text: version.text, reason, findings, ...(rejected ? { rejected: true as const } : {}) });
    const text = rejected ? `upstream "${server}": tool ${tool} was rejected on review and stays held (toolshelf approve ${server} ${tool} serves it)` : heldText(server, tool, reason, findings);
    warnings.push({ key: `${tool}\u0000${version.hash}\u0000${reason}${rejected ? '\u0000rejected' : ''}`, tool, reason, held: true, text });
  };
  const pinNow = (tool: string, version: ToolPin): void => {
    if (!live) return;
    tools[tool] = { hash: version.hash, text: version.text };
    pinsChanged = true;
  };
  for (const tool of listing.tools) {
    let version: ToolPin;
    let findings: readonly Finding[];
    try {
      version = pinOf(tool);
      findings = policy.scanner === 'off' ? [] : scanTool(tool, context);
    } catch {
      // Nested too deeply to serialise: the catalogue drops such a declaration with a warning (catalog/build.ts), so it is never served.
      continue;
    }
    const pinned = pins?.tools[tool.name];
    const flaggedNow = findings.length > 0 && !(pinned?.hash === version.hash && pinned.reviewed === true);
    if (flaggedNow && policy.scanner === 'hold') {
      hold(tool.name, version, 'flagged', findings);
      continue;
    }
    if (flaggedNow) warnings.push({ key: `${tool.name}\u0000${version.hash}\u0000flagged`, tool: tool.name, reason: 'flagged', held: false, text: flaggedText(server, tool.name, findings) });
    if (pinned?.hash === version.hash || policy.changes === 'off') {
      if (!pinned || pinned.hash !== version.hash) pinNow(tool.name, version);
      continue;
    }
    if (pinned) {
      if (policy.changes === 'quarantine') hold(tool.name, version, 'changed', findings);
      else {
        warnings.push({ key: `${tool.name}\u0000${version.hash}\u0000changed`, tool: tool.name, reason: 'changed', held: false, text: `upstream "${server}": tool ${tool.name} changed since it was pinned; served all the same (trust.changes is "warn")` });
        pinNow(tool.name, version);
      }
      continue;
    }
    if (pins === undefined) {
      // Trust on first use, from a live listing only: a cached one waits for the upstream to confirm it.
      pinNow(tool.name, version);
      continue;
    }
    if (!live || policy.newTools === 'hold') {
      hold(tool.name, version, 'new', findings);
      continue;
    }
    pinNow(tool.name, version);
    warnings.push({ key: `${tool.name}\u0000${version.hash}\u0000pinned_new`, tool: tool.name, reason: 'pinned_new', held: false, text: `upstream "${server}": new tool ${tool.name} pinned (it was not there when the server was first pinned)` });
  }
  const instructionsHeld = judgeInstructions(listing, pins, policy, context, warnings);
  const heldInstructions = instructionsHeld ? instructionsHeld : undefined;
  const heldRecord = Object.fromEntries(held);
  const wasHeld = pins?.held ?? {};
  const sameHeld = sameKeys(wasHeld, heldRecord) && Object.entries(heldRecord).every(([name, v]) => wasHeld[name]?.hash === v.hash && wasHeld[name]?.reason === v.reason);
  const sameInstructions = pins?.heldInstructions?.hash === heldInstructions?.hash;
  // A first live listing is pinned even when empty: tools the server adds later are then new ones.
  const firstPins = pins === undefined && live;
  // A cache never starts the pins (a record of what it held would make the first live listing's tools "new").
  if ((!pinsChanged && sameHeld && sameInstructions && !firstPins) || (pins === undefined && !live)) return { held, instructionsHeld: heldInstructions !== undefined, warnings, pins };
  const next: ServerPins = {
    tools,
    held: heldRecord,
    ...(pins?.instructions ? { instructions: pins.instructions } : {}),
    ...(heldInstructions ? { heldInstructions } : {}),
    ...(pins?.rejected ? { rejected: pins.rejected } : {}),
  };
  return { held, instructionsHeld: heldInstructions !== undefined, warnings, pins: next };
}

/** The held instructions record when the scanner holds them, after adding its warning. */
function judgeInstructions(listing: Listing, pins: ServerPins | undefined, policy: TrustPolicy, context: ScanContext, warnings: TrustWarning[]): HeldInstructions | undefined {
  const text = listing.instructions;
  if (text === undefined || text === '' || policy.scanner === 'off') return undefined;
  const findings = scanInstructions(text, context);
  if (findings.length === 0) return undefined;
  const hash = stableHash(text);
  if (pins?.instructions?.hash === hash) return undefined;
  const held = policy.scanner === 'hold';
  const what = held ? 'left out of toolshelf\'s instructions until approved' : 'passed on all the same (trust.scanner is "warn")';
  warnings.push({ key: `\u0000${hash}\u0000flagged`, reason: 'flagged', held, text: `upstream "${listing.server}": its instructions look like injected instructions (${summary(findings)}); ${what}${held ? `: toolshelf review, then toolshelf approve ${listing.server}` : ''}` });
  return held ? { hash, text, findings } : undefined;
}

function sameKeys(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const x = Object.keys(a);
  return x.length === Object.keys(b).length && x.every((k) => Object.hasOwn(b, k));
}

/** The findings' kinds and places, short: `tag at $.description, secret_path at $.description`. */
export function summary(findings: readonly Finding[]): string {
  return findings.map((f) => `${f.kind} at ${f.where}`).join(', ');
}

function flaggedText(server: string, tool: string, findings: readonly Finding[]): string {
  return `upstream "${server}": tool ${tool} looks like it carries injected instructions (${summary(findings)}); served all the same (trust.scanner is "warn")`;
}

function heldText(server: string, tool: string, reason: HoldReason, findings: readonly Finding[]): string {
  const why =
    reason === 'changed'
      ? 'changed since it was pinned'
      : reason === 'new'
        ? 'is new and not pinned yet'
        : `looks like it carries injected instructions (${summary(findings)})`;
  return `upstream "${server}": tool ${tool} ${why}; held for review: toolshelf review, then toolshelf approve ${server} ${tool}`;
}

/** The answer for a call or search that reaches a held tool: says it is held and how to approve it, never what changed. `reason` is a {@link HoldReason}. */
export function heldAnswer(qualifiedName: string, server: string, tool: string, reason: string): string {
  const why = reason === 'changed' ? 'changed since the user approved it' : reason === 'new' ? 'is new on its server' : 'was flagged by the scanner';
  return `Tool "${qualifiedName}" ${why} and is held for review: the user can look with \`toolshelf review\` and allow it with \`toolshelf approve ${server} ${tool}\`. Do not call it until then.`;
}

/** What `approve` did: the tools pinned, and the names asked for that were not held. */
export interface Approval {
  readonly pins: ServerPins;
  readonly approved: readonly string[];
  readonly instructions: boolean;
  readonly notHeld: readonly string[];
}

/**
 * Pins the held versions of `tools` as reviewed (every held tool, and held instructions, when
 * `tools` is empty), and drops them from `held`. Pure.
 */
export function approve(pins: ServerPins, tools: readonly string[]): Approval {
  const chosen = tools.length === 0 ? Object.keys(pins.held) : tools.filter((t) => Object.hasOwn(pins.held, t));
  const notHeld = tools.filter((t) => !Object.hasOwn(pins.held, t));
  const nextTools: Record<string, ToolPin> = { ...pins.tools };
  const held: Record<string, HeldVersion> = { ...pins.held };
  for (const name of chosen) {
    const version = held[name]!;
    nextTools[name] = { hash: version.hash, text: version.text as PinnedText, reviewed: true };
    delete held[name];
  }
  const instructions = tools.length === 0 && pins.heldInstructions !== undefined;
  const { heldInstructions: _h, instructions: _i, rejected: _r, ...rest } = pins;
  // An approved version is no longer rejected.
  const rejected = Object.fromEntries(Object.entries(pins.rejected ?? {}).filter(([name]) => !chosen.includes(name)));
  const next: ServerPins = {
    ...rest,
    ...(Object.keys(rejected).length > 0 ? { rejected } : {}),
    tools: nextTools,
    held,
    ...(instructions ? { instructions: { hash: pins.heldInstructions!.hash } } : pins.instructions ? { instructions: pins.instructions } : {}),
    ...(!instructions && pins.heldInstructions ? { heldInstructions: pins.heldInstructions } : {}),
  };
  return { pins: next, approved: chosen, instructions, notHeld };
}

/**
 * Records the held versions of `tools` as rejected on review (every held tool when `tools` is empty):
 * they stay held, and their warning is no longer repeated as news; a later change is judged afresh.
 * Pure. Uses {@link Approval}'s shape: `approved` names the tools rejected.
 */
export function reject(pins: ServerPins, tools: readonly string[]): Approval {
  const chosen = tools.length === 0 ? Object.keys(pins.held) : tools.filter((t) => Object.hasOwn(pins.held, t));
  const notHeld = tools.filter((t) => !Object.hasOwn(pins.held, t));
  const rejected: Record<string, string> = { ...(pins.rejected ?? {}) };
  for (const name of chosen) rejected[name] = pins.held[name]!.hash;
  return { pins: { ...pins, rejected }, approved: chosen, instructions: false, notHeld };
}
