/**
 * Merging observed shapes: kinds at a position are unioned, objects' fields
 * joined with counts added (so a field in 3 of 5 samples is optional), and
 * every result bounded by the limits. Associative and order-independent,
 * up to the order of fields (first seen first).
 *
 * @module
 */
import {
  type Shape,
  SHAPE_KIND_ORDER,
  type ShapeField,
  type ShapeKind,
  type ShapeLimits,
} from "./shape_types.ts";

export const UNKNOWN: ShapeKind = { kind: "unknown" };

export function unknownShape(samples: number): Shape {
  return { samples, kinds: [UNKNOWN] };
}

export function isUnknown(shape: Shape): boolean {
  return shape.kinds.some((k) => k.kind === "unknown");
}

/** Sets `kind[key]` when there is an inner shape (absent keys stay absent in JSON). */
export function withInner<K extends ShapeKind>(kind: K, key: string, inner: Shape | undefined): K {
  if (inner) (kind as Record<string, unknown>)[key] = inner;
  return kind;
}

/** Kinds of one position made canonical: `integer` folds into `number`, order fixed, union bounded. */
export function finish(samples: number, kinds: ShapeKind[], limits: ShapeLimits): Shape {
  if (kinds.some((k) => k.kind === "unknown")) return unknownShape(samples);
  let out = kinds;
  if (out.some((k) => k.kind === "number")) out = out.filter((k) => k.kind !== "integer");
  if (out.length > limits.maxUnion) return unknownShape(samples);
  out = [...out].sort((a, b) =>
    SHAPE_KIND_ORDER.indexOf(a.kind) - SHAPE_KIND_ORDER.indexOf(b.kind)
  );
  return { samples, kinds: out };
}

/** Objects and records fill one slot: a position is never both. */
function slot(kind: ShapeKind): string {
  return kind.kind === "record" ? "object" : kind.kind;
}

/** `a` and `b` as one shape. */
export function merge(a: Shape, b: Shape, limits: ShapeLimits): Shape {
  const samples = a.samples + b.samples;
  if (isUnknown(a) || isUnknown(b)) return unknownShape(samples);
  const bySlot = new Map<string, ShapeKind>();
  for (const k of [...a.kinds, ...b.kinds]) {
    const prev = bySlot.get(slot(k));
    bySlot.set(slot(k), prev ? mergeKind(prev, k, limits) : k);
  }
  return finish(samples, [...bySlot.values()], limits);
}

function mergeOptional(a: Shape | undefined, b: Shape | undefined, limits: ShapeLimits) {
  return a && b ? merge(a, b, limits) : a ?? b;
}

function mergeKind(a: ShapeKind, b: ShapeKind, limits: ShapeLimits): ShapeKind {
  if (a.kind === "array" && b.kind === "array") {
    return withInner({ kind: "array" }, "items", mergeOptional(a.items, b.items, limits));
  }
  if (a.kind === "set" && b.kind === "set") {
    return withInner({ kind: "set" }, "items", mergeOptional(a.items, b.items, limits));
  }
  if (a.kind === "map" && b.kind === "map") {
    const keys = withInner({ kind: "map" }, "keys", mergeOptional(a.keys, b.keys, limits));
    return withInner(keys, "values", mergeOptional(a.values, b.values, limits));
  }
  if (a.kind === "object" && b.kind === "object") return mergeObjects(a, b, limits);
  if (a.kind === "record" && b.kind === "record") {
    return { kind: "record", values: merge(a.values, b.values, limits) };
  }
  if (a.kind === "record" && b.kind === "object") return absorb(a, b, limits);
  if (a.kind === "object" && b.kind === "record") return absorb(b, a, limits);
  return a; // Scalars of one kind.
}

/** A record that meets a struct: the struct's fields are more entries. */
function absorb(
  record: { kind: "record"; values: Shape },
  obj: { fields: ShapeField[] },
  limits: ShapeLimits,
): ShapeKind {
  let values = record.values;
  for (const f of obj.fields) {
    values = values.samples === 0 ? f.shape : merge(values, f.shape, limits);
  }
  return { kind: "record", values };
}

function mergeObjects(
  a: Extract<ShapeKind, { kind: "object" }>,
  b: Extract<ShapeKind, { kind: "object" }>,
  limits: ShapeLimits,
): ShapeKind {
  const fields = new Map<string, Shape>();
  for (const f of a.fields) fields.set(f.name, f.shape);
  for (const f of b.fields) {
    const prev = fields.get(f.name);
    fields.set(f.name, prev ? merge(prev, f.shape, limits) : f.shape);
  }
  let list = [...fields].map(([name, shape]) => ({ name, shape }));
  let more = a.more === true || b.more === true;
  if (list.length > limits.maxFields) {
    // Keep the fields seen most often; among equals, the ones seen first.
    const kept = new Set(
      list.map((f, i) => ({ f, i }))
        .sort((x, y) => y.f.shape.samples - x.f.shape.samples || x.i - y.i)
        .slice(0, limits.maxFields)
        .map(({ f }) => f),
    );
    list = list.filter((f) => kept.has(f));
    more = true;
  }
  const out: ShapeKind = { kind: "object", count: a.count + b.count, fields: list };
  if (more) out.more = true;
  return out;
}
