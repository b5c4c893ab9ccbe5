/**
 * The longest delay a Node.js timer takes, in ms (2^31 - 1, about 24.8 days): a longer one fires
 * after 1 ms with a TimeoutOverflowWarning, so a setting over it would time out at once or re-arm a
 * timer every ms. Source: Node.js docs, `setTimeout(callback[, delay])`.
 */
export const LONGEST_TIMER_MS = 2_147_483_647;

/**
 * How long a stdio gateway (or the relay of a shared instance's client) still hands output to a
 * client that closed its stdin or was signalled, in ms, before it ends anyway: a client that stopped
 * reading its stdout would otherwise keep it alive until killed. 2 s, the SDK
 * stdio client's own wait between closing stdin and SIGTERM (MCP spec, Lifecycle › Shutdown › stdio).
 */
export const CLIENT_GONE_GRACE_MS = 2000;
