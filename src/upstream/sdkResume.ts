/**
 * Hands a modern (2026-07-28) upstream's tools/call response that a direct call does not settle
 * itself, an `input_required` round or a result that is not plain text, to the SDK Client's own
 * result decoding and multi-round-trip engine, exactly as if the Client had sent the request: its
 * wire-schema check, its fulfilment of the input requests through the handlers toolshelf registered
 * (relay.ts), its retries and round limit. There is no public entry for that in SDK 2.4.0, so this
 * uses three protected members of its Client (`_negotiatedWireCodec`, `_resolveNonCompleteResult`,
 * `_requestWithSchemaViaCodec`); {@link canResume} checks they are there, and without them modern
 * upstream calls keep the Client's path. Source: docs/benchmarks.md; MCP spec 2026-07-28,
 * Basic › Multi-round-trip requests; SDK 2.4.0 `Protocol._requestWithSchemaViaCodec` (the funnel this
 * continues).
 */
import { ResultSchema } from '@modelcontextprotocol/core';
import { SdkError, SdkErrorCode, type Client, type RequestOptions } from '@modelcontextprotocol/client';

/** The era codec's decoding of a raw result (SDK 2.4.0 `WireCodec.decodeResult`). */
type Decoded = { kind: 'complete'; result: unknown } | { kind: 'invalid'; error: Error } | { kind: string };

interface Codec {
  decodeResult(method: string, raw: unknown): Decoded;
}

/** The protected SDK 2.4.0 Client members used here. */
interface ClientSeams {
  _negotiatedWireCodec(): Codec;
  _resolveNonCompleteResult(decoded: Decoded, flow: unknown): Promise<unknown>;
  _requestWithSchemaViaCodec(codec: Codec, request: { method: string; params?: Record<string, unknown> }, schema: unknown, options: unknown): Promise<unknown>;
}

/** Whether `client` has the SDK members {@link resumeInClient} needs. */
export function canResume(client: Client): boolean {
  const seams = client as unknown as Partial<ClientSeams>;
  return typeof seams._negotiatedWireCodec === 'function' && typeof seams._resolveNonCompleteResult === 'function' && typeof seams._requestWithSchemaViaCodec === 'function';
}

/**
 * Settles the raw tools/call result `raw` (a plain object) of a request made with `params` (as
 * given to the Client: name, arguments, caller `_meta`; no progress token or envelope) that started
 * at `startedAt` (ms since the epoch), as the Client's own request would: resolves to the complete
 * result; rejects with the Client's error (an invalid result, a failed or exceeded round, a timeout
 * or abort of a retry under `options`).
 */
export async function resumeInClient(client: Client, params: Record<string, unknown>, raw: Record<string, unknown>, options: RequestOptions, startedAt: number): Promise<Record<string, unknown>> {
  const seams = client as unknown as ClientSeams;
  const codec = seams._negotiatedWireCodec();
  const method = 'tools/call';
  const decoded = codec.decodeResult(method, raw);
  if (decoded.kind === 'invalid') throw (decoded as { error: Error }).error;
  if (decoded.kind !== 'complete') {
    const flow = {
      codec,
      request: { method, params },
      resultSchema: ResultSchema,
      options,
      flowStartedAt: startedAt,
      retry: (retried: Record<string, unknown> | undefined, legOptions: unknown) => seams._requestWithSchemaViaCodec(codec, retried === undefined ? { method } : { method, params: retried }, ResultSchema, legOptions),
    };
    return (await seams._resolveNonCompleteResult(decoded, flow)) as Record<string, unknown>;
  }
  const parsed = ResultSchema.safeParse((decoded as { result: unknown }).result);
  if (!parsed.success) throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${method}: ${parsed.error.message}`);
  return parsed.data as Record<string, unknown>;
}
