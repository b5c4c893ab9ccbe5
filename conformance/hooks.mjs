// Module resolution hook (node:module register): inside @modelcontextprotocol/conformance only,
// `fs` and `node:fs` resolve to fsWithGlobSync.mjs. Everything else resolves as usual.
const SHIM = new URL('./fsWithGlobSync.mjs', import.meta.url).href;
const CONFORMANCE = '/node_modules/@modelcontextprotocol/conformance/';

/** Node's `resolve` hook: redirects the conformance package's `fs` imports to the shim. */
export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(CONFORMANCE)) return { url: SHIM, shortCircuit: true };
  return nextResolve(specifier, context);
}
