/**
 * Observed output shapes: for tools whose output schema says nothing, the
 * host learns the structure of their results, merged across calls, so
 * `describe()` can tell a model `{ id: number; labels?: string[] }` instead
 * of `unknown`. Only structure is kept, never values: kinds, field names and
 * counts. Keys that look like data (ids, emails, dates, overlong names) are
 * never kept; an object keyed by data becomes `Record<string, …>`.
 *
 * A {@link Shape} is plain JSON, stored as is, and every shape stays within
 * {@link SHAPE_LIMITS}. Merging adds counts, so a field present in 3 of 5
 * samples is optional whatever order the samples came in.
 *
 * @module
 */
import { merge, unknownShape } from "./shape_merge.ts";
import { MAX_CONTAINERS_OBSERVED, observe } from "./shape_observe.ts";
import { resolveLimits, type Shape, type ShapeLimits } from "./shape_types.ts";

export {
  MAX_FIELD_NAME_LENGTH,
  MAX_ITEMS_OBSERVED,
  type ScalarKind,
  type Shape,
  SHAPE_KIND_ORDER,
  SHAPE_LIMITS,
  type ShapeField,
  type ShapeKind,
  type ShapeLimits,
} from "./shape_types.ts";
export { shapeToTs } from "./shape_ts.ts";
export { isShape } from "./shape_check.ts";

/**
 * The shape of one value: what a tool returned, reduced to structure.
 * Throws `RangeError` for limits that are not non-negative integers.
 *
 * @example
 * ```ts
 * import { observeShape, shapeToTs } from "./shape.ts";
 * const shape = observeShape({ id: 7, title: "Crash on save", labels: ["bug"], closed_at: null });
 * console.assert(shapeToTs(shape) === "{ id: number; title: string; labels: string[]; closed_at: null }");
 * console.assert(!JSON.stringify(shape).includes("Crash on save"));
 * ```
 */
export function observeShape(value: unknown, limits?: Partial<ShapeLimits>): Shape {
  const l = resolveLimits(limits);
  return fitNodes(observe(value, 0, { limits: l, containers: MAX_CONTAINERS_OBSERVED }), l);
}

/**
 * `a` and `b` as one shape: kinds unioned, fields joined, counts added.
 * The order of merging does not change the result, except for the order
 * fields are listed in (first seen first).
 *
 * @example
 * ```ts
 * import { mergeShapes, observeShape, shapeToTs } from "./shape.ts";
 * const shape = mergeShapes(observeShape({ id: 1, due: "2024-05-01" }), observeShape({ id: 2, due: null }));
 * console.assert(shapeToTs(shape) === "{ id: number; due: string | null }");
 * console.assert(shape.samples === 2);
 * ```
 */
export function mergeShapes(a: Shape, b: Shape, limits?: Partial<ShapeLimits>): Shape {
  const l = resolveLimits(limits);
  return fitNodes(merge(a, b, l), l);
}

/** The shapes below `shape`, each once: array items, map keys and values, fields, record values. */
function children(shape: Shape): Shape[] {
  const out: Shape[] = [];
  for (const k of shape.kinds) {
    if (k.kind === "array" || k.kind === "set") {
      if (k.items) out.push(k.items);
    } else if (k.kind === "map") {
      if (k.keys) out.push(k.keys);
      if (k.values) out.push(k.values);
    } else if (k.kind === "object") {
      for (const f of k.fields) out.push(f.shape);
    } else if (k.kind === "record") {
      out.push(k.values);
    }
  }
  return out;
}

function countNodes(shape: Shape): number {
  let n = 1;
  for (const c of children(shape)) n += countNodes(c);
  return n;
}

/** `shape` with every container at `level` or deeper turned `unknown`. */
function cutAt(shape: Shape, level: number, depth = 0): Shape {
  const inner = children(shape);
  if (inner.length === 0) return shape;
  if (depth >= level) return unknownShape(shape.samples);
  const cut = new Map(inner.map((c) => [c, cutAt(c, level, depth + 1)]));
  return {
    samples: shape.samples,
    kinds: shape.kinds.map((k) => {
      switch (k.kind) {
        case "array":
        case "set":
          return k.items ? { ...k, items: cut.get(k.items)! } : k;
        case "map":
          return {
            ...k,
            ...(k.keys ? { keys: cut.get(k.keys)! } : {}),
            ...(k.values ? { values: cut.get(k.values)! } : {}),
          };
        case "object":
          return {
            ...k,
            fields: k.fields.map((f) => ({ name: f.name, shape: cut.get(f.shape)! })),
          };
        case "record":
          return { ...k, values: cut.get(k.values)! };
        default:
          return k;
      }
    }),
  };
}

/** Over the node budget, the deepest levels go first: the top of a result is what a script reads. */
function fitNodes(shape: Shape, limits: ShapeLimits): Shape {
  if (countNodes(shape) <= limits.maxNodes) return shape;
  for (let level = limits.maxDepth - 1; level > 0; level--) {
    const cut = cutAt(shape, level);
    if (countNodes(cut) <= limits.maxNodes) return cut;
  }
  return unknownShape(shape.samples);
}
