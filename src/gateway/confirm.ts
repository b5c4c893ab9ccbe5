/**
 * Confirmation of risky calls made through call_tool. A client that asks its user per tool sees only
 * `call_tool`, so one "always allow" would approve every upstream tool behind it; a tool the policy
 * names is therefore confirmed with the user by toolshelf itself: by elicitation (form mode, one
 * yes/no field) for a legacy client that declared it, by `input_required` for a 2026-07-28 client
 * (the held-call machinery turns the same request into a round), and refused with how to allow it
 * where the client can be asked neither way. A call by the tool's own name is never gated here: the
 * client's own per-tool approval applies to it. Source: MCP spec 2025-11-25, Client › Elicitation
 * (form mode; `elicitation: {}` means form); 2026-07-28, Basic › Patterns › Multi-round-trip
 * requests; docs/security.md "Risky calls".
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogEntry } from '../catalog/types.js';
import type { ConfirmPolicy } from '../config/types.js';
import { declaresEffects, hintsOf, isDestructive, isOpenWorld } from '../discovery/risk.js';
import type { RequestOrigin } from '../upstream/types.js';
import { errorResult } from './results.js';

/** The bridge's confirmation settings (`bridge.confirm`, `bridge.unaskable`). */
export interface ConfirmSettings {
  readonly confirm: ConfirmPolicy;
  readonly unaskable: 'refuse' | 'run';
}

/** The shipped policy: confirm tools that declare themselves destructive; refuse where nobody can be asked. */
export const DEFAULT_CONFIRM: ConfirmSettings = { confirm: 'destructive', unaskable: 'refuse' };

/** Why a tool is confirmed, in the words the user and the model read. */
export type Risk = 'declares itself destructive' | 'may be destructive (it declares no annotations)' | 'reaches outside systems (open world)';

/** Why `entry` must be confirmed under `policy`, or undefined when it runs without asking. Pure. */
export function riskToConfirm(entry: CatalogEntry, policy: ConfirmPolicy): Risk | undefined {
  if (policy === 'off') return undefined;
  const hints = hintsOf(entry.tool);
  if (declaresEffects(hints) && isDestructive(hints)) return 'declares itself destructive';
  if (policy === 'destructive') return undefined;
  if (isDestructive(hints)) return 'may be destructive (it declares no annotations)';
  if (policy === 'open-world' && isOpenWorld(hints)) return 'reaches outside systems (open world)';
  return undefined;
}

/**
 * Whether a client's declared `elicitation` capability covers form mode: `{}` (the 2025-06-18 shape,
 * form only) or an object with `form`. Undefined, or URL mode alone: no.
 */
export function canElicitForm(elicitation: unknown): boolean {
  if (elicitation === null || typeof elicitation !== 'object' || Array.isArray(elicitation)) return false;
  const modes = elicitation as Record<string, unknown>;
  return modes.form !== undefined || modes.url === undefined;
}

/** Longest arguments text shown to the user, in characters (JSON, clipped with `…`). */
export const SHOWN_ARGUMENTS_CHARS = 500;

/** The field the user answers. */
export const CONFIRM_FIELD = 'allow';

/** The `elicitation/create` params that ask the user about one bridged call. Pure. */
export function confirmationRequest(entry: CatalogEntry, args: Record<string, unknown>, risk: Risk): Record<string, unknown> {
  const shown = JSON.stringify(args);
  const clipped = shown.length > SHOWN_ARGUMENTS_CHARS ? `${shown.slice(0, SHOWN_ARGUMENTS_CHARS)}…` : shown;
  return {
    mode: 'form',
    message: `The model wants to run ${entry.qualifiedName} from server "${entry.server}" through call_tool. The tool ${risk}. Arguments: ${clipped}. Allow this call?`,
    requestedSchema: {
      type: 'object',
      properties: { [CONFIRM_FIELD]: { type: 'boolean', title: `Run ${entry.qualifiedName}`, description: 'Yes runs this one call; no stops it.', default: false } },
      required: [CONFIRM_FIELD],
    },
  };
}

/** True only for an `accept` whose content says yes. Pure. */
export function confirmed(answer: Record<string, unknown>): boolean {
  const content = answer.content as Record<string, unknown> | undefined;
  return answer.action === 'accept' && content?.[CONFIRM_FIELD] === true;
}

/** The answer when the user said no (declined, cancelled, or accepted with no). */
export function declinedResult(entry: CatalogEntry): CallToolResult {
  return errorResult(`The user declined to run ${entry.qualifiedName}; nothing was sent to the tool. Do not retry it unless the user asks.`);
}

/** The answer when the client cannot be asked: why, and how the user can allow it. */
export function unaskableResult(entry: CatalogEntry, risk: Risk): CallToolResult {
  return errorResult(
    `${entry.qualifiedName} was not run: the tool ${risk}, and calls through call_tool to such tools need the user's confirmation, which this client cannot give (it supports neither elicitation nor input_required). ` +
      `Tell the user; they can allow it by exposing the tool directly in toolshelf's config ("tools": {"${entry.upstreamName}": {"exposure": "direct"}} under server "${entry.server}", so their client's own approval applies), ` +
      'or by setting "bridge": {"confirm": "off"} (or "unaskable": "run").',
  );
}

/** How one confirmation ended: go on with the call, or answer with `result`. */
export type Confirmation = { readonly run: true; readonly failure?: undefined } | { readonly run: false; readonly result: CallToolResult; readonly failure: 'declined' | 'unconfirmed' };

/**
 * Confirms one bridged call of `entry` with `args` under `settings`: runs without asking when the
 * policy does not name the tool; otherwise asks the user through `origin` when `canAsk` (legacy:
 * elicitation declared; modern: the same request becomes an `input_required` round), else refuses
 * (or runs, `unaskable: "run"`). A failed ask (the client errs or times out) refuses. Never rejects.
 */
export async function confirmBridgedCall(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  settings: ConfirmSettings,
  canAsk: boolean,
  origin: RequestOrigin | undefined,
  signal: AbortSignal,
): Promise<Confirmation> {
  const risk = riskToConfirm(entry, settings.confirm);
  if (risk === undefined) return { run: true };
  if (!canAsk || origin === undefined) {
    return settings.unaskable === 'run' ? { run: true } : { run: false, result: unaskableResult(entry, risk), failure: 'unconfirmed' };
  }
  try {
    const answer = await origin.ask('elicitation/create', confirmationRequest(entry, args, risk), signal);
    return confirmed(answer) ? { run: true } : { run: false, result: declinedResult(entry), failure: 'declined' };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { run: false, result: errorResult(`${entry.qualifiedName} was not run: asking the user to confirm it failed (${why}).`), failure: 'unconfirmed' };
  }
}
