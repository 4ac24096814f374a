/**
 * The tagged encoding for values JSON cannot carry. Both ends of the channel
 * use it, so a `Uint8Array`, `bigint`, `Date`, `Map`, `Set`, non-finite
 * number or `undefined` inside an array survives the trip.
 *
 * A tagged value is an object whose only key besides `v` is `$t`:
 *
 * | value | on the wire |
 * | --- | --- |
 * | `undefined` (top level or in an array) | `{ "$t": "undefined" }` |
 * | `123n` | `{ "$t": "bigint", "v": "123" }` |
 * | `new Date(0)` | `{ "$t": "date", "v": "1970-01-01T00:00:00.000Z" }` |
 * | `Uint8Array`, `ArrayBuffer` | `{ "$t": "bytes", "v": "<base64>" }` |
 * | `NaN`, `Infinity`, `-Infinity`, `-0` | `{ "$t": "number", "v": "NaN" }` |
 * | `Map` | `{ "$t": "map", "v": [[key, value], …] }` |
 * | `Set` | `{ "$t": "set", "v": [value, …] }` |
 * | an object that has its own `$t` key | `{ "$t": "object", "v": { … } }` |
 *
 * Functions, symbols and cycles cannot be encoded: {@link encodeValue}
 * throws a {@link CodecError} naming the path.
 *
 * @module
 */
import { CordonError } from "../errors.ts";
import { Predecoded } from "./predecoded.ts";
import { isPlainJson, isUntagged } from "./codec_plain.ts";

export { Predecoded } from "./predecoded.ts";

/** How deep a value may nest before it is refused (a cycle guard too). */
export const MAX_VALUE_DEPTH = 200;

/**
 * The most digits a decoded `bigint` may have. Parsing decimal digits into a
 * bigint costs more per digit as the number grows (measured here: 20 ns a
 * digit at 10,000 digits, 170 ns at 1,000,000, so a 3.9M-digit value held the
 * host for seconds). At 10,000 the cost stays about what the frame's JSON
 * costs, and any real bigint fits: a 4096-bit key is 1,234 digits.
 */
export const MAX_BIGINT_DIGITS = 10_000;

/** A value could not be encoded; `path` says where. */
export class CodecError extends TypeError {
  readonly path: string;
  /** What is wrong there, without the path. */
  readonly reason: string;
  constructor(path: string, what: string) {
    super(`Cannot encode value at ${path || "(root)"}: ${what}`);
    this.name = "CodecError";
    this.path = path;
    this.reason = what;
  }
}

const TAG = "$t";

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Encodes `value` into plain JSON-compatible data (see the module docs). */
export function encodeValue(value: unknown): unknown {
  return encodePart(value, "", 0, new Set(), true);
}

/**
 * What to hand `JSON.stringify` at once for `value`: the value itself when it is plain JSON
 * data already (no copy), its {@link encodeValue} otherwise. Not for keeping: the value may be
 * the caller's own object.
 */
export function forJson(value: unknown): unknown {
  return isPlainJson(value, TAG, MAX_VALUE_DEPTH) ? value : encodeValue(value);
}

/**
 * Encodes one part of a value at `path`, `depth` levels down, with `seen` holding the
 * containers above it (cycle guard): what {@link encodeValue} does for each part. For
 * `codec_json.ts`, which builds a big value's JSON text across turns.
 */
export function encodePart(
  value: unknown,
  path: string,
  depth: number,
  seen: Set<object>,
  keepUndefined: boolean,
): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (Number.isFinite(value) && !Object.is(value, -0)) return value;
      return { [TAG]: "number", v: Object.is(value, -0) ? "-0" : String(value) };
    case "bigint":
      return { [TAG]: "bigint", v: value.toString() };
    case "undefined":
      return keepUndefined ? { [TAG]: "undefined" } : undefined;
    case "function":
      throw new CodecError(path, "a function is not data");
    case "symbol":
      throw new CodecError(path, "a symbol is not data");
  }
  if (value === null) return null;
  const obj = value as object;
  if (depth >= MAX_VALUE_DEPTH) throw new CodecError(path, `nested deeper than ${MAX_VALUE_DEPTH}`);
  if (seen.has(obj)) throw new CodecError(path, "the value refers to itself (a cycle)");
  if (obj instanceof Date) {
    const time = obj.getTime();
    return { [TAG]: "date", v: Number.isNaN(time) ? null : obj.toISOString() };
  }
  if (obj instanceof Uint8Array) return { [TAG]: "bytes", v: toBase64(obj) };
  if (obj instanceof ArrayBuffer) return { [TAG]: "bytes", v: toBase64(new Uint8Array(obj)) };
  seen.add(obj);
  try {
    if (Array.isArray(obj)) {
      const out = new Array(obj.length);
      for (let i = 0; i < obj.length; i++) {
        out[i] = encodePart(obj[i], `${path}[${i}]`, depth + 1, seen, true);
      }
      return out;
    }
    if (obj instanceof Map) {
      const entries: unknown[] = [];
      let i = 0;
      for (const [k, v] of obj) {
        entries.push([
          encodePart(k, `${path}<key ${i}>`, depth + 1, seen, true),
          encodePart(v, `${path}<value ${i}>`, depth + 1, seen, true),
        ]);
        i++;
      }
      return { [TAG]: "map", v: entries };
    }
    if (obj instanceof Set) {
      const items: unknown[] = [];
      let i = 0;
      for (const v of obj) items.push(encodePart(v, `${path}<item ${i++}>`, depth + 1, seen, true));
      return { [TAG]: "set", v: items };
    }
    if (ArrayBuffer.isView(obj)) {
      throw new CodecError(path, `${obj.constructor.name} is not supported; use Uint8Array`);
    }
    if (obj instanceof Error) {
      const code = (obj as { code?: unknown }).code;
      return {
        [TAG]: "error",
        v: { name: obj.name, message: obj.message, ...(typeof code === "string" ? { code } : {}) },
      };
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(obj)) {
      const child = encodePart(
        (obj as Record<string, unknown>)[key],
        path ? `${path}.${key}` : key,
        depth + 1,
        seen,
        false,
      );
      if (child !== undefined) out[key] = child;
    }
    return Object.hasOwn(out, TAG) ? { [TAG]: "object", v: out } : out;
  } finally {
    seen.delete(obj);
  }
}

/**
 * The longest text a `date` or `number` tag may carry. Every real one is
 * under 30 characters; a longer one is refused before the parser sees it.
 */
export const MAX_SCALAR_TAG_CHARS = 64;

/**
 * A frame's value could not be decoded (a tag past its bound, nesting past
 * {@link MAX_VALUE_DEPTH}). It is a `protocol_error`: the other side sent
 * what no honest encoder produces.
 */
export class DecodeError extends CordonError {
  constructor(what: string) {
    super("protocol_error", `Cannot decode a value: ${what}`);
    this.name = "DecodeError";
  }
}

/**
 * Decodes data produced by {@link encodeValue} back into values. Every tag's
 * cost is linear in its size: a bigint over {@link MAX_BIGINT_DIGITS} digits,
 * a date or number text over {@link MAX_SCALAR_TAG_CHARS} characters and
 * nesting past {@link MAX_VALUE_DEPTH} throw a {@link DecodeError}. Data with
 * nothing tagged in it comes back as it is, not copied (it is `JSON.parse`'s
 * output, which nobody else holds).
 */
export function decodeValue(value: unknown): unknown {
  if (Predecoded.is(value)) return value.unwrap();
  // Fresh from `JSON.parse` and nothing tagged in it: decoding would only copy it.
  return isUntagged(value, TAG, MAX_VALUE_DEPTH) ? value : decode(value, 0);
}

function scalarText(tag: string, v: unknown): string {
  const text = String(v);
  if (text.length > MAX_SCALAR_TAG_CHARS) {
    throw new DecodeError(
      `a ${tag} of ${text.length} characters (at most ${MAX_SCALAR_TAG_CHARS})`,
    );
  }
  return text;
}

function decode(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_VALUE_DEPTH) throw new DecodeError(`nested deeper than ${MAX_VALUE_DEPTH}`);
  const next = (v: unknown) => decode(v, depth + 1);
  if (Array.isArray(value)) return value.map(next);
  const obj = value as Record<string, unknown>;
  const tag = obj[TAG];
  if (typeof tag === "string") {
    const v = obj.v;
    switch (tag) {
      case "undefined":
        return undefined;
      case "bigint": {
        const digits = String(v);
        // A sign, then digits: the bound counts what the parser must convert.
        if (digits.length > MAX_BIGINT_DIGITS + 1) {
          throw new DecodeError(
            `a bigint of ${digits.length} digits (at most ${MAX_BIGINT_DIGITS})`,
          );
        }
        return BigInt(digits);
      }
      case "date":
        return new Date(v === null ? NaN : scalarText(tag, v));
      case "bytes":
        return fromBase64(String(v));
      case "number":
        return v === "-0" ? -0 : Number(scalarText(tag, v));
      case "map":
        return new Map((Array.isArray(v) ? v : []).map((e) => [next(e?.[0]), next(e?.[1])]));
      case "set":
        return new Set((Array.isArray(v) ? v : []).map(next));
      case "error": {
        const e = (v ?? {}) as Record<string, unknown>;
        return {
          name: String(e.name ?? "Error"),
          message: String(e.message ?? ""),
          ...(e.code ? { code: e.code } : {}),
        };
      }
      case "object":
        return decodeObject((v ?? {}) as Record<string, unknown>, next);
    }
  }
  return decodeObject(obj, next);
}

function decodeObject(
  obj: Record<string, unknown>,
  decodeValue: (v: unknown) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    // A `__proto__` key from the other side stays data: assigning it would
    // swap the new object's prototype.
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: decodeValue(obj[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[key] = decodeValue(obj[key]);
  }
  return out;
}
