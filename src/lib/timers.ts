/**
 * The longest delay a Node.js timer takes, in ms (2^31 - 1, about 24.8 days): a longer one fires
 * after 1 ms with a TimeoutOverflowWarning, so a setting over it would time out at once or re-arm a
 * timer every ms (breaker on 14f5a51). Source: Node.js docs, `setTimeout(callback[, delay])`.
 */
export const LONGEST_TIMER_MS = 2_147_483_647;
