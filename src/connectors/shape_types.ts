/**
 * The data types of observed output shapes and their bounds (see
 * `shape.ts` for what they are for).
 *
 * @module
 */

/** The structure of the values seen at one position, and how many there were. */
export interface Shape {
  /** Values merged into this shape (for a field: objects that had it). */
  samples: number;
  /** What they were: one entry per kind, in {@link SHAPE_KIND_ORDER}; `unknown` alone if unbounded. */
  kinds: ShapeKind[];
}

/** One kind of value seen at a position. */
export type ShapeKind =
  | { kind: ScalarKind }
  | { kind: "unknown" }
  /** `items` absent: only empty arrays were seen. */
  | { kind: "array"; items?: Shape }
  | { kind: "set"; items?: Shape }
  | { kind: "map"; keys?: Shape; values?: Shape }
  /** `count` objects seen; a field with fewer samples is optional. `more`: fields were left out. */
  | { kind: "object"; count: number; fields: ShapeField[]; more?: true }
  /** An object used as a map: its keys are data, only its values' shape is kept. */
  | { kind: "record"; values: Shape };

/** A field of an object shape. */
export interface ShapeField {
  name: string;
  shape: Shape;
}

/** Kinds without inner structure. Dates, bytes and bigints arrive as such through the codec. */
export type ScalarKind =
  | "string"
  | "integer"
  | "number"
  | "bigint"
  | "boolean"
  | "date"
  | "bytes"
  | "undefined"
  | "null";

/** The order kinds are kept and rendered in: structure first, `null` last. */
export const SHAPE_KIND_ORDER: readonly ShapeKind["kind"][] = [
  "object",
  "record",
  "array",
  "set",
  "map",
  "string",
  "integer",
  "number",
  "bigint",
  "boolean",
  "date",
  "bytes",
  "undefined",
  "null",
  "unknown",
];

/** Bounds on every shape. */
export interface ShapeLimits {
  /** Containers nested deeper than this are `unknown`. */
  maxDepth: number;
  /** Fields kept per object; the rest are an index signature. */
  maxFields: number;
  /** Kinds at one position before it is `unknown`. */
  maxUnion: number;
  /** Shape nodes in all; past it, the deepest levels become `unknown`. */
  maxNodes: number;
}

/** The default bounds, each with the reason for its value. */
export const SHAPE_LIMITS: Readonly<ShapeLimits> = Object.freeze({
  /**
   * Containers nested deeper become `unknown`. Real payloads reach about
   * four (GitHub: pull request → head → repo → owner); past six a script
   * rarely reads, and each level multiplies the rendered type.
   */
  maxDepth: 6,
  /**
   * Fields kept per object; the rest become `[key: string]: unknown`. A
   * full REST object (a GitHub issue) has about 30; beyond 40 the first
   * ones are the useful ones and the type would crowd a model's context.
   */
  maxFields: 40,
  /**
   * Kinds at one position before it is `unknown`. `string | number | null`
   * is common and useful; five kinds means free-form data, and listing them
   * tells a model nothing it can branch on.
   */
  maxUnion: 4,
  /**
   * Shape nodes in all. Depth and width bound one object, but a generic
   * tool (an HTTP fetch) merges many unrelated payloads; this keeps the
   * stored JSON to a few tens of KB and the rendered type readable. A full
   * GitHub issue, with user, labels and milestone, is about 150.
   */
  maxNodes: 400,
});

/** A field name longer than this is data (a path, a sentence, a token), not structure. */
export const MAX_FIELD_NAME_LENGTH = 64;
/**
 * Elements observed per array, set or map, spread evenly. Elements mostly
 * share a shape, and a 100,000-row result must not cost 100,000 merges on
 * every call.
 */
export const MAX_ITEMS_OBSERVED = 100;

/** `limits` over the defaults, checked. */
export function resolveLimits(limits: Partial<ShapeLimits> = {}): ShapeLimits {
  const out = { ...SHAPE_LIMITS };
  for (const [name, v] of Object.entries(limits)) {
    if (v !== undefined) out[name as keyof ShapeLimits] = v;
  }
  for (const [name, min] of [["maxDepth", 0], ["maxFields", 0], ["maxUnion", 1], ["maxNodes", 1]]) {
    const v = out[name as keyof ShapeLimits];
    if (!Number.isSafeInteger(v) || v < (min as number)) {
      throw new RangeError(`Cannot use shape limit ${name} = ${v}: it must be an integer ≥ ${min}`);
    }
  }
  return out;
}
