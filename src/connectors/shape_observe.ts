/**
 * Observing one value's shape: its kinds, its objects' field names and
 * nothing else. Keys that look like data are never kept; objects keyed by
 * data become records.
 *
 * @module
 */
import { finish, isUnknown, merge, unknownShape, withInner } from "./shape_merge.ts";
import {
  MAX_FIELD_NAME_LENGTH,
  MAX_ITEMS_OBSERVED,
  type ScalarKind,
  type Shape,
  type ShapeKind,
  type ShapeLimits,
} from "./shape_types.ts";

/** Keys that carry data rather than naming a field: ids, numbers, emails, dates, paths. */
function looksLikeData(key: string): boolean {
  if (key.length === 0 || key.length > MAX_FIELD_NAME_LENGTH) return true;
  if (/^[-+]?\d+(\.\d+)?$/.test(key)) return true;
  if (/[@/\\]|^\d{4}-\d{2}-\d{2}/.test(key)) return true;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(key) || /^[0-9a-f]{16,}$/i.test(key)) return true;
  // Prefixed or random ids (cus_Nf8v1234, C024BE91L, +15551234567) carry several digits.
  return (key.match(/\d/g)?.length ?? 0) >= 4;
}

/**
 * Containers one observation may walk. A 100-row result of nested objects
 * is a few thousand; far more means shared references (the same array in
 * every row of every row), and the rest of such a value is `unknown`.
 */
export const MAX_CONTAINERS_OBSERVED = 20_000;
/**
 * A wide object (more than `maxFields` keys) is a map when its values have
 * at most this many kinds (`User | null`); wider unions are a big struct.
 */
const MAX_MAP_VALUE_KINDS = 2;

/** What one observation carries down: the limits and the walk's remaining budget. */
export interface Observation {
  limits: ShapeLimits;
  containers: number;
}

/** At most {@link MAX_ITEMS_OBSERVED} indexes below `length`, spread over all of it. */
function sampleIndexes(length: number): number[] {
  const n = Math.min(length, MAX_ITEMS_OBSERVED);
  const step = length / n;
  return Array.from({ length: n }, (_, i) => Math.floor(i * step));
}

function sample<T>(items: readonly T[]): T[] {
  return sampleIndexes(items.length).map((i) => items[i]);
}

/** The merged shape of `values` at `depth`, or undefined when there are none. */
function observeAll(values: readonly unknown[], depth: number, ob: Observation): Shape | undefined {
  let acc: Shape | undefined;
  for (const i of sampleIndexes(values.length)) {
    const s = observe(values[i], depth, ob);
    acc = acc ? merge(acc, s, ob.limits) : s;
  }
  return acc;
}

function scalar(kind: ScalarKind): Shape {
  return { samples: 1, kinds: [{ kind }] };
}

/** The shape of `value` found at `depth` (the root is 0). */
export function observe(value: unknown, depth: number, ob: Observation): Shape {
  switch (typeof value) {
    case "string":
      return scalar("string");
    case "number":
      return scalar(Number.isInteger(value) ? "integer" : "number");
    case "bigint":
      return scalar("bigint");
    case "boolean":
      return scalar("boolean");
    case "undefined":
      return scalar("undefined");
    case "function":
    case "symbol":
      return unknownShape(1);
  }
  if (value === null) return scalar("null");
  if (value instanceof Date) return scalar("date");
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return scalar("bytes");
  if (depth >= ob.limits.maxDepth || --ob.containers < 0) return unknownShape(1);
  try {
    return finish(1, [observeContainer(value as object, depth + 1, ob)], ob.limits);
  } catch {
    // A getter or proxy that throws: the result is still the tool's, its shape is unknown.
    return unknownShape(1);
  }
}

function observeContainer(value: object, inner: number, ob: Observation): ShapeKind {
  if (Array.isArray(value)) {
    // Holes read as undefined, as the codec sends them.
    return withInner({ kind: "array" }, "items", observeAll(value, inner, ob));
  }
  if (value instanceof Set) {
    return withInner({ kind: "set" }, "items", observeAll([...value], inner, ob));
  }
  if (value instanceof Map) {
    const entries = sample([...value]);
    const map = withInner({ kind: "map" }, "keys", observeAll(entries.map(([k]) => k), inner, ob));
    return withInner(map, "values", observeAll(entries.map(([, v]) => v), inner, ob));
  }
  return observeObject(value as Record<string, unknown>, inner, ob);
}

function observeObject(obj: Record<string, unknown>, inner: number, ob: Observation): ShapeKind {
  const { limits } = ob;
  // An undefined field is absent on the wire.
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  const dataKeys = keys.filter(looksLikeData).length;
  if (dataKeys > 0 && dataKeys * 2 >= keys.length) return recordOf(obj, keys, inner, ob);
  if (keys.length > limits.maxFields) {
    // Wide and uniform is a map (flags by name); wide and mixed is a big struct.
    const record = recordOf(obj, keys, inner, ob);
    const kinds = record.values.kinds;
    if (!isUnknown(record.values) && kinds.length <= MAX_MAP_VALUE_KINDS) return record;
  }
  const names = keys.filter((k) => !looksLikeData(k));
  const fields = names.slice(0, limits.maxFields).map((name) => ({
    name,
    shape: observe(obj[name], inner, ob),
  }));
  const kind: ShapeKind = { kind: "object", count: 1, fields };
  if (names.length !== keys.length || fields.length < names.length) kind.more = true;
  return kind;
}

function recordOf(
  obj: Record<string, unknown>,
  keys: string[],
  inner: number,
  ob: Observation,
): { kind: "record"; values: Shape } {
  const values = observeAll(sample(keys).map((k) => obj[k]), inner, ob) ?? unknownShape(0);
  return { kind: "record", values };
}
