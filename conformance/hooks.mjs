// Module resolution hook (node:module register): inside @modelcontextprotocol/conformance only (the
// pinned 0.1.x and the 0.2.x installed under the `conformance-next` alias), `fs` and `node:fs`
// resolve to fsWithGlobSync.mjs. Everything else resolves as usual.
const SHIM = new URL('./fsWithGlobSync.mjs', import.meta.url).href;
const CONFORMANCE = ['/node_modules/@modelcontextprotocol/conformance/', '/node_modules/conformance-next/'];

/** Node's `resolve` hook: redirects the conformance package's `fs` imports to the shim. */
export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && CONFORMANCE.some((dir) => context.parentURL?.includes(dir))) return { url: SHIM, shortCircuit: true };
  return nextResolve(specifier, context);
}
