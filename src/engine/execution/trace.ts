/**
 * The trace an execution belongs to: the trace id of an incoming W3C
 * `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header)
 * when the caller sent a valid one, else one of its own. A malformed header
 * is ignored, never an error: tracing must not refuse work.
 *
 * @module
 */

/** Longer than any traceparent of a known version; anything longer is not read at all. */
const MAX_TRACEPARENT_CHARS = 512;

/** `version-traceid-parentid-flags`, lowercase hex; later versions may append `-…` fields. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

const ZERO_TRACE = "0".repeat(32);
const ZERO_PARENT = "0".repeat(16);

/**
 * The trace id of a W3C `traceparent`, or `undefined` when it is not a valid one: version `ff`,
 * an all-zero trace or parent id, upper-case hex, or extra fields on version `00` all make it
 * invalid, as the recommendation says.
 */
export function traceIdOf(traceparent: unknown): string | undefined {
  if (typeof traceparent !== "string" || traceparent.length > MAX_TRACEPARENT_CHARS) {
    return undefined;
  }
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m) return undefined;
  const [, version, traceId, parentId, , rest] = m;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || parentId === ZERO_PARENT) return undefined;
  return traceId;
}

/**
 * The trace id of an execution that was given none: the 32 hex digits of its id (a time part,
 * then 80 random bits), so the id alone finds its trace and an execution stored before trace
 * ids were kept still answers the same one every time.
 */
export function ownTraceId(executionId: string): string {
  const hex = executionId.slice(executionId.indexOf("_") + 1);
  if (/^[0-9a-f]{32}$/.test(hex) && hex !== ZERO_TRACE) return hex;
  // Not an id this runtime made (a test's, or a foreign one): a fresh random trace.
  const random = crypto.getRandomValues(new Uint8Array(16));
  random[15] |= 1;
  return [...random].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The trace id of an execution: its `traceparent`'s when that is valid, else its own. */
export function traceIdFor(traceparent: unknown, executionId: string): string {
  return traceIdOf(traceparent) ?? ownTraceId(executionId);
}
