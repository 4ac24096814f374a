/**
 * The codec's fast paths. Most values that cross the channel are plain JSON data already: a
 * call's arguments, a number back. Encoding one copies it whole, and in a fresh sandbox child,
 * whose code still runs in V8's interpreter, that copy was most of what a call cost (measured:
 * 5 ms of encoding for 1,000 small calls, against 0.7 ms for their JSON). These checks walk a
 * value without copying it and say when the copy would be the value itself.
 *
 * @module
 */

/** Captured when the module loads: a sandbox's user code may replace the globals later. */
const { getPrototypeOf, hasOwn, keys, is } = Object;
const { isArray } = Array;
const { isFinite } = Number;
const objectPrototype = Object.prototype;

/**
 * True when `JSON.stringify(value)` writes what the tagged encoding would: strings, booleans,
 * finite numbers (not `-0`), `null`, arrays of those without holes or `undefined`, and objects
 * made by `{}` or `Object.create(null)` with no key `$t` (a key whose value is `undefined` is
 * left out by both). Anything else, or nesting past `maxDepth` (a cycle too), is false: the
 * full encoder decides, and names what it refuses.
 */
export function isPlainJson(value: unknown, tag: string, maxDepth: number, depth = 0): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return isFinite(value) && !is(value, -0);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= maxDepth) return false;
  if (isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!isPlainJson(value[i], tag, maxDepth, depth + 1)) return false;
    }
    return true;
  }
  const proto = getPrototypeOf(value);
  if ((proto !== objectPrototype && proto !== null) || hasOwn(value, tag)) return false;
  for (const key of keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined && !isPlainJson(v, tag, maxDepth, depth + 1)) return false;
  }
  return true;
}

/**
 * True when `value`, as `JSON.parse` made it, holds no tagged value (an object whose `tag` is a
 * string) within `maxDepth` levels: decoding it would only copy it.
 */
export function isUntagged(value: unknown, tag: string, maxDepth: number, depth = 0): boolean {
  if (value === null || typeof value !== "object") return true;
  if (depth >= maxDepth) return false;
  if (isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!isUntagged(value[i], tag, maxDepth, depth + 1)) return false;
    }
    return true;
  }
  const obj = value as Record<string, unknown>;
  if (typeof obj[tag] === "string") return false;
  for (const key of keys(obj)) {
    if (!isUntagged(obj[key], tag, maxDepth, depth + 1)) return false;
  }
  return true;
}
