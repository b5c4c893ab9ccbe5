/**
 * Approving (or rejecting) held tools in the pin store, as `toolshelf approve` and the dashboard do: read the
 * server's pins, pin the held versions asked for (trust/judge.ts `approve`), and write them, reading
 * again when a running gateway wrote the pins in between, so its judgement and the approval never
 * undo each other. Source: docs/security.md, "Pins, quarantine and review".
 */
import { approve, reject, type Approval, type ServerPins } from './judge.js';

/** How often an approval reads and writes again when another process wrote the pins meanwhile. */
export const MAX_APPROVE_ATTEMPTS = 5;

/** Where pins are read and written (trust/store.ts `PinStore`). */
export interface PinFiles {
  load(server: string): ServerPins | undefined;
  /** False when another process changed the pins since they were read: nothing was written. */
  save(server: string, pins: ServerPins): boolean;
}

/** What an approval came to. */
export type ApproveOutcome =
  | { readonly kind: 'approved'; readonly approval: Approval; readonly before: ServerPins }
  /** Nothing of the server is held. */
  | { readonly kind: 'nothing_held' }
  /** None of the tools named is held; `held` are those that are. */
  | { readonly kind: 'not_held'; readonly notHeld: readonly string[]; readonly held: readonly string[] }
  /** The pins kept changing under every attempt. */
  | { readonly kind: 'busy' };

/**
 * Approves `tools` of `server` (every held tool and held instructions when `tools` is empty) in
 * `store`. @throws the file system's error when the pins cannot be written.
 */
export function approveStored(store: PinFiles, server: string, tools: readonly string[]): ApproveOutcome {
  return decideStored(store, server, tools, approve);
}

/**
 * Rejects the held versions of `tools` of `server` (every held tool when `tools` is empty) in `store`:
 * they stay held and stop being news (judge.ts `reject`); `approval.approved` names them.
 * @throws the file system's error when the pins cannot be written.
 */
export function rejectStored(store: PinFiles, server: string, tools: readonly string[]): ApproveOutcome {
  return decideStored(store, server, tools, reject);
}

/** Applies `decide` to `server`'s pins and writes them, reading again when another process wrote them meanwhile. */
function decideStored(store: PinFiles, server: string, tools: readonly string[], decide: (pins: ServerPins, tools: readonly string[]) => Approval): ApproveOutcome {
  for (let attempt = 0; attempt < MAX_APPROVE_ATTEMPTS; attempt += 1) {
    const pins = store.load(server);
    if (!pins || (Object.keys(pins.held).length === 0 && !pins.heldInstructions)) return { kind: 'nothing_held' };
    const attempted = decide(pins, tools);
    if (attempted.approved.length === 0 && !attempted.instructions) return { kind: 'not_held', notHeld: attempted.notHeld, held: Object.keys(pins.held) };
    if (store.save(server, attempted.pins)) return { kind: 'approved', approval: attempted, before: pins };
  }
  return { kind: 'busy' };
}
