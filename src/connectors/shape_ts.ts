/**
 * Rendering an observed shape as a TypeScript type expression, the form
 * `describe()` shows a model.
 *
 * @module
 */
import type { ScalarKind, Shape, ShapeKind } from "./shape_types.ts";

const SCALAR_TS: Readonly<Record<ScalarKind, string>> = {
  string: "string",
  // TypeScript has one number type; integer-ness is kept in the shape only.
  integer: "number",
  number: "number",
  bigint: "bigint",
  boolean: "boolean",
  date: "Date",
  bytes: "Uint8Array",
  undefined: "undefined",
  null: "null",
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A TypeScript type expression for `shape`, on one line: fields seen in
 * fewer samples than their object are optional (`labels?:`), left-out
 * fields become `[key: string]: unknown`, and names that are not
 * identifiers are quoted.
 *
 * @example
 * ```ts
 * import { mergeShapes, observeShape, shapeToTs } from "./shape.ts";
 * const a = observeShape({ id: 1, "created-at": new Date(), tags: [] });
 * const b = observeShape({ id: 2, "created-at": new Date(), tags: ["x"], closed: true });
 * console.assert(
 *   shapeToTs(mergeShapes(a, b)) ===
 *     '{ id: number; "created-at": Date; tags: string[]; closed?: boolean }',
 * );
 * ```
 */
export function shapeToTs(shape: Shape): string {
  return alternatives(shape).join(" | ");
}

function alternatives(shape: Shape): string[] {
  const parts = [...new Set(shape.kinds.map(renderKind))];
  return parts.length === 0 ? ["unknown"] : parts;
}

/** As an array element: a union needs parentheses (`(string | null)[]`). */
function element(shape: Shape): string {
  const parts = alternatives(shape);
  return parts.length > 1 ? `(${parts.join(" | ")})` : parts[0];
}

function propertyName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function renderKind(k: ShapeKind): string {
  switch (k.kind) {
    case "unknown":
      return "unknown";
    case "array":
      return k.items ? `${element(k.items)}[]` : "unknown[]";
    case "set":
      return `Set<${k.items ? shapeToTs(k.items) : "unknown"}>`;
    case "map":
      return `Map<${k.keys ? shapeToTs(k.keys) : "unknown"}, ${
        k.values ? shapeToTs(k.values) : "unknown"
      }>`;
    case "record":
      return `Record<string, ${shapeToTs(k.values)}>`;
    case "object": {
      if (k.fields.length === 0 && !k.more) return "Record<string, never>";
      const members = k.fields.map((f) =>
        `${propertyName(f.name)}${f.shape.samples < k.count ? "?" : ""}: ${shapeToTs(f.shape)}`
      );
      if (k.more) members.push("[key: string]: unknown");
      return `{ ${members.join("; ")} }`;
    }
    default:
      return SCALAR_TS[k.kind];
  }
}
