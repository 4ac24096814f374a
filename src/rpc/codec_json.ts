/**
 * A value's JSON text in the tagged encoding, `JSON.stringify(encodeValue(value))`, built
 * across turns of the event loop. A run may return up to `maxResultBytes` (4 MB by default):
 * encoding and stringifying such a value in one go held the host's event loop for 40–70 ms
 * here (every other run's deadlines and calls wait meanwhile). Arrays and plain objects are
 * written entry by entry, with a turn whenever the current one has run {@link SLICE_BUDGET_MS};
 * every other part is encoded as {@link encodeValue} does. The text is the same, byte for byte.
 *
 * @module
 */
import { nextTurn } from "../loop.ts";
import { CodecError, encodePart, encodeValue, MAX_VALUE_DEPTH } from "./codec.ts";

/** The longest stretch of encoding between two turns of the event loop. */
export const SLICE_BUDGET_MS = 4;

/**
 * A container with fewer entries than this has every array and plain object inside it written
 * entry by entry too (so a small wrapper around a big list is cut); a bigger one only its big
 * arrays (so a list of many small records costs no promise per record).
 */
const BIG_ENTRIES = 256;

const TAG = "$t";

/** When the current slice started. */
interface Slice {
  startedAt: number;
}

/**
 * `JSON.stringify(encodeValue(value)) ?? ""`, computed a slice at a time.
 *
 * @example
 * ```ts
 * import { encodedJson } from "./codec_json.ts";
 * const text = await encodedJson({ rows: [1, 2n] });
 * // text === '{"rows":[1,{"$t":"bigint","v":"2"}]}'
 * ```
 */
export async function encodedJson(value: unknown, budgetMs = SLICE_BUDGET_MS): Promise<string> {
  if (!sliceable(value)) return JSON.stringify(encodeValue(value)) ?? "";
  const slice: Slice = { startedAt: performance.now() };
  return await container(value as object, "", 0, new Set(), slice, budgetMs);
}

/** An array, or an object {@link encodeValue} writes key by key with no tag of its own. */
function sliceable(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return true;
  return !(value instanceof Date || value instanceof Map || value instanceof Set ||
    value instanceof ArrayBuffer || ArrayBuffer.isView(value) || value instanceof Error ||
    Object.hasOwn(value, TAG));
}

/** True once the current slice has run its budget (the caller then awaits {@link turn}). */
function spent(slice: Slice, budgetMs: number): boolean {
  return performance.now() - slice.startedAt >= budgetMs;
}

async function turn(slice: Slice): Promise<void> {
  await nextTurn();
  slice.startedAt = performance.now();
}

/** Whether a part of a container with `entries` entries is written entry by entry. */
function descend(part: unknown, entries: number): boolean {
  if (!sliceable(part)) return false;
  return entries < BIG_ENTRIES || (Array.isArray(part) && part.length >= BIG_ENTRIES);
}

async function container(
  obj: object,
  path: string,
  depth: number,
  seen: Set<object>,
  slice: Slice,
  budgetMs: number,
): Promise<string> {
  if (depth >= MAX_VALUE_DEPTH) throw new CodecError(path, `nested deeper than ${MAX_VALUE_DEPTH}`);
  if (seen.has(obj)) throw new CodecError(path, "the value refers to itself (a cycle)");
  seen.add(obj);
  try {
    const out: string[] = [];
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length; i++) {
        const at = `${path}[${i}]`;
        const item = obj[i];
        out.push(
          descend(item, obj.length)
            ? await container(item, at, depth + 1, seen, slice, budgetMs)
            : JSON.stringify(encodePart(item, at, depth + 1, seen, true)),
        );
        if (spent(slice, budgetMs)) await turn(slice);
      }
      return `[${out.join(",")}]`;
    }
    const keys = Object.keys(obj);
    for (const key of keys) {
      const at = path ? `${path}.${key}` : key;
      const part = (obj as Record<string, unknown>)[key];
      const text = descend(part, keys.length)
        ? await container(part as object, at, depth + 1, seen, slice, budgetMs)
        : JSON.stringify(encodePart(part, at, depth + 1, seen, false));
      if (text !== undefined) out.push(`${JSON.stringify(key)}:${text}`);
      if (spent(slice, budgetMs)) await turn(slice);
    }
    return `{${out.join(",")}}`;
  } finally {
    seen.delete(obj);
  }
}
