/** Counted nouns for messages: `counted(1, 'tool')` is "1 tool", `counted(2, 'tool')` "2 tools". Pure. */

/** `count` and `noun`, with `plural` (default `noun` + "s") unless `count` is 1. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
