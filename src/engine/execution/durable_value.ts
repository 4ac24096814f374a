/**
 * The values of the durable call log: how a value is encoded for the log
 * (refused when the codec cannot carry it or it is over the log's byte
 * limit), and the canonical JSON that lets equal arguments compare equal
 * when a replayed call is matched to its entry.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { CodecError, encodeValue, forJson, MAX_VALUE_DEPTH } from "../../rpc/codec.ts";

const encoder = new TextEncoder();

/** A JSON text with object keys sorted, so equal arguments compare equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(encodeValue(value)));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    out[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return out;
}

/**
 * Encodes a value for the log, refusing one over `maxBytes`, and one the
 * codec cannot carry (a function, a cycle, a `Float32Array`, nesting past
 * {@link MAX_VALUE_DEPTH}) with `unencodable`: `invalid_output` for what a
 * tool or a person returned, `invalid_input` for what the script sent.
 */
export function durableJson(
  value: unknown,
  maxBytes: number,
  what: string,
  unencodable: "invalid_input" | "invalid_output" = "invalid_output",
): string {
  let json: string;
  try {
    json = JSON.stringify(forJson(value)) ?? "null";
  } catch (err) {
    if (!(err instanceof CodecError)) throw err;
    throw new CordonError(
      unencodable,
      `${what} cannot be carried: ${err.message}; return plain data (Uint8Array for bytes)`,
      { details: { path: err.path, maxDepth: MAX_VALUE_DEPTH } },
    );
  }
  // A UTF-16 unit is at most 3 bytes of UTF-8: most values are counted without encoding them.
  const bytes = json.length * 3 <= maxBytes ? json.length : encoder.encode(json).length;
  if (bytes > maxBytes) {
    throw new CordonError(
      "value_too_large",
      `${what} is ${bytes} bytes, over the ${maxBytes}-byte limit of the call log; pass a reference (an artifact name or an id) instead of the value`,
      { details: { bytes, limit: maxBytes } },
    );
  }
  return json;
}
