/**
 * OpenAPI schema objects as plain JSON Schema (draft 2020-12) that the
 * JSON Schema validator (`../json_schema.ts`) and the type generator accept:
 * one node at a time, children left to the caller.
 *
 * What changes, and why:
 * - `nullable: true` (3.0) adds `"null"` to `type` (and `enum`), or wraps the
 *   schema in `anyOf [schema, null]` when it has no `type`;
 * - boolean `exclusiveMinimum`/`exclusiveMaximum` (3.0) become numbers;
 * - `example` becomes `examples: [example]`; array `items` becomes `prefixItems`;
 * - `oneOf` becomes `anyOf`: OpenAPI `oneOf`s of open objects often match more
 *   than one branch, and a strict "exactly one" would refuse valid calls;
 * - `unevaluated*` (OpenAPI documents pair them with `allOf`s this
 *   conversion rewrites), an invalid `pattern`, unknown `type`s, `$id`/`$schema`/`$anchor`/`$dynamicRef`,
 *   embedded `$defs`, OpenAPI-only keywords (`discriminator`, `xml`,
 *   `externalDocs`) and `x-` extensions are dropped: validation gets looser,
 *   never stricter, and the server still checks what it receives.
 *
 * @module
 */
import { isRecord } from "../typegen/refs.ts";

/** Keywords whose value is one subschema. */
export const SINGLE_SCHEMA_KEYWORDS = [
  "items",
  "additionalProperties",
  "additionalItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
] as const;

/** Keywords whose value is a list of subschemas. */
export const LIST_SCHEMA_KEYWORDS = ["allOf", "anyOf", "prefixItems"] as const;

/** Keywords whose value maps names to subschemas. */
export const MAP_SCHEMA_KEYWORDS = ["properties", "patternProperties", "dependentSchemas"] as const;

/** Keywords that only describe: safe to merge next to a `$ref` target. */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  "description",
  "title",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  "default",
]);

const DROPPED_KEYWORDS = new Set([
  "nullable",
  "discriminator",
  "xml",
  "externalDocs",
  "example",
  "$schema",
  "$id",
  "id",
  "$anchor",
  "$dynamicAnchor",
  "$dynamicRef",
  "$recursiveRef",
  "$recursiveAnchor",
  "$comment",
  "$vocabulary",
  "$defs",
  "definitions",
  "dependencies",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contentSchema",
]);

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);

function isValidPattern(pattern: unknown): boolean {
  if (typeof pattern !== "string") return false;
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

function fixExclusiveBound(out: Record<string, unknown>, exclusive: string, bound: string): void {
  const value = out[exclusive];
  if (value === undefined || typeof value === "number") return;
  if (value === true && typeof out[bound] === "number") {
    out[exclusive] = out[bound];
    delete out[bound];
  } else {
    delete out[exclusive];
  }
}

/** Lets `null` through as well, the way 3.0's `nullable: true` means. */
function makeNullable(out: Record<string, unknown>): Record<string, unknown> {
  if (Object.keys(out).length === 0) return out;
  if (out.type !== undefined && out.const === undefined) {
    const types = Array.isArray(out.type) ? out.type : [out.type];
    if (!types.includes("null")) out.type = [...types, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  if (Array.isArray(out.enum) && out.const === undefined) {
    if (!out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: "null" }] };
}

/**
 * One schema node's own keywords as JSON Schema, children untouched (they
 * are still OpenAPI and may hold `$ref`s). `true` is `{}` and `false` is
 * `{ not: {} }`.
 *
 * @example
 * ```ts
 * import { normalizeKeywords } from "./schema_keywords.ts";
 * const out = normalizeKeywords({ type: "string", nullable: true, example: "a" });
 * console.assert(JSON.stringify(out) === '{"type":["string","null"],"examples":["a"]}');
 * ```
 */
export function normalizeKeywords(node: unknown): Record<string, unknown> {
  if (node === false) return { not: {} };
  if (!isRecord(node)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!DROPPED_KEYWORDS.has(key) && !key.startsWith("x-")) out[key] = value;
  }
  if (out.type !== undefined) {
    const types = (Array.isArray(out.type) ? out.type : [out.type]).filter((t) =>
      JSON_TYPES.has(t)
    );
    if (types.length === 0) delete out.type;
    else out.type = types.length === 1 ? types[0] : [...new Set(types)];
  }
  fixExclusiveBound(out, "exclusiveMinimum", "minimum");
  fixExclusiveBound(out, "exclusiveMaximum", "maximum");
  if (node.example !== undefined && out.examples === undefined) out.examples = [node.example];
  if (out.examples !== undefined && !Array.isArray(out.examples)) delete out.examples;
  if (out.pattern !== undefined && !isValidPattern(out.pattern)) delete out.pattern;
  if (out.required !== undefined) {
    if (Array.isArray(out.required)) {
      out.required = out.required.filter((r) => typeof r === "string");
    } else delete out.required;
  }
  if (out.enum !== undefined && !Array.isArray(out.enum)) delete out.enum;
  if (out.oneOf !== undefined) {
    if (Array.isArray(out.oneOf)) {
      if (out.anyOf === undefined) out.anyOf = out.oneOf;
      else out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { anyOf: out.oneOf }];
    }
    delete out.oneOf;
  }
  if (Array.isArray(out.items)) {
    if (out.prefixItems === undefined) out.prefixItems = out.items;
    delete out.items;
  }
  if (out.dependentRequired !== undefined && !isRecord(out.dependentRequired)) {
    delete out.dependentRequired;
  }
  for (const key of [...LIST_SCHEMA_KEYWORDS]) {
    if (out[key] !== undefined && !Array.isArray(out[key])) delete out[key];
  }
  for (const key of [...MAP_SCHEMA_KEYWORDS]) {
    if (out[key] !== undefined && !isRecord(out[key])) delete out[key];
  }
  return node.nullable === true ? makeNullable(out) : out;
}
