/**
 * Checking a shape read back from storage before trusting it: a row written
 * by another version, or edited by hand, is refused rather than rendered.
 *
 * @module
 */
import { MAX_FIELD_NAME_LENGTH, type Shape, SHAPE_KIND_ORDER } from "./shape_types.ts";

/** Deeper than any limits produce; stops a crafted row before recursion gets deep. */
const MAX_CHECK_DEPTH = 64;
/** Far above any budget; bounds the time spent on a crafted row. */
const MAX_CHECK_NODES = 100_000;

/** Kinds with no parts of their own: every kind but the containers. */
const SCALARS: ReadonlySet<string> = new Set(
  SHAPE_KIND_ORDER.filter((k) => !["object", "record", "array", "set", "map"].includes(k)),
);

/** The keys each kind may have besides `kind`. */
const KIND_KEYS: Readonly<Record<string, readonly string[]>> = {
  array: ["items"],
  set: ["items"],
  map: ["keys", "values"],
  object: ["count", "fields", "more"],
  record: ["values"],
};

type Budget = { nodes: number };
type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

function hasOnly(v: Json, allowed: readonly string[]): boolean {
  return Object.keys(v).every((k) => allowed.includes(k));
}

/**
 * True when `value` is a well-formed {@link Shape}: known kinds, each at
 * most once (objects and records share a slot), counts that are
 * non-negative integers, unique field names no longer than
 * `MAX_FIELD_NAME_LENGTH`, and nothing else.
 *
 * @example
 * ```ts
 * import { isShape, observeShape } from "./shape.ts";
 * console.assert(isShape(JSON.parse(JSON.stringify(observeShape({ a: [1, "x"] })))));
 * console.assert(!isShape({ samples: 1, kinds: [{ kind: "string", value: "secret" }] }));
 * ```
 */
export function isShape(value: unknown): value is Shape {
  return checkShape(value, 0, { nodes: MAX_CHECK_NODES });
}

function checkShape(v: unknown, depth: number, budget: Budget): boolean {
  if (depth > MAX_CHECK_DEPTH || --budget.nodes < 0) return false;
  if (!isRecord(v) || !hasOnly(v, ["samples", "kinds"]) || !isCount(v.samples)) return false;
  const kinds = v.kinds;
  if (!Array.isArray(kinds) || kinds.length === 0) return false;
  const slots = new Set<string>();
  for (const k of kinds) {
    if (!checkKind(k, depth, budget)) return false;
    const slot = k.kind === "record" ? "object" : k.kind;
    if (slots.has(slot)) return false;
    slots.add(slot);
  }
  // `unknown` stands alone: it absorbs every other kind.
  return !slots.has("unknown") || slots.size === 1;
}

function checkKind(k: unknown, depth: number, budget: Budget): k is Json & { kind: string } {
  if (!isRecord(k) || typeof k.kind !== "string") return false;
  if (!(SHAPE_KIND_ORDER as readonly string[]).includes(k.kind)) return false;
  if (!hasOnly(k, ["kind", ...(KIND_KEYS[k.kind] ?? [])])) return false;
  const inner = (s: unknown, optional: boolean) =>
    s === undefined ? optional : checkShape(s, depth + 1, budget);
  switch (k.kind) {
    case "array":
    case "set":
      return inner(k.items, true);
    case "map":
      return inner(k.keys, true) && inner(k.values, true);
    case "record":
      return inner(k.values, false);
    case "object":
      return checkObject(k, depth, budget);
    default:
      return SCALARS.has(k.kind);
  }
}

function checkObject(k: Json, depth: number, budget: Budget): boolean {
  if (!isCount(k.count) || (k.more !== undefined && k.more !== true)) return false;
  if (!Array.isArray(k.fields)) return false;
  const names = new Set<string>();
  for (const f of k.fields) {
    if (!isRecord(f) || !hasOnly(f, ["name", "shape"])) return false;
    const name = f.name;
    if (typeof name !== "string" || name === "" || name.length > MAX_FIELD_NAME_LENGTH) {
      return false;
    }
    if (names.has(name) || !checkShape(f.shape, depth + 1, budget)) return false;
    names.add(name);
  }
  return true;
}
