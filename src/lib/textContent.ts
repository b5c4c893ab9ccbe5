/**
 * The commonest tool result content, text blocks and nothing else, told apart without a schema
 * parse: such content is valid in every CallToolResult schema of the SDK (2025 and 2026 wire), so
 * the hot path skips the parse. Pure. Source: MCP spec, Server › Tools › Tool
 * result (TextContent: `type: "text"`, `text`).
 */

/** Whether `content` is an array of `{ type: 'text', text: string }` blocks with no other keys. */
export function isTextBlocks(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  return content.every((block: unknown) => {
    if (typeof block !== 'object' || block === null) return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
    const { type, text } = block as { type?: unknown; text?: unknown };
    return type === 'text' && typeof text === 'string';
  });
}
