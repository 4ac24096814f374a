/**
 * Values in the store are JSON text in the tagged encoding of the channel,
 * so what a tool returned comes back from the log exactly as it was.
 *
 * @module
 */
import { decodeValue, encodeValue } from "../rpc/codec.ts";

/** Encodes a value for a TEXT column (`undefined` becomes SQL NULL). */
export function toJson(value: unknown): string | null {
  if (value === undefined) return null;
  return JSON.stringify(encodeValue(value));
}

/** Decodes a TEXT column written by {@link toJson}. */
export function fromJson(text: unknown): unknown {
  if (text === null || text === undefined) return undefined;
  return decodeValue(JSON.parse(String(text)));
}
