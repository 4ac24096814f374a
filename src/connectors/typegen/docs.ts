/**
 * The JSDoc a property gets from its schema: description, `@deprecated`,
 * `@format`, `@default`, `@example` and the numeric/length limits.
 *
 * @module
 */
import { docLines } from "./literals.ts";

/** Longest `@default`/`@example` value written; past it the value is cut with "…". */
export const MAX_DOC_VALUE_CHARS = 200;
/** Examples written per property: a few show the form, more only cost tokens. */
export const MAX_DOC_EXAMPLES = 3;

/** Keywords written as `@keyword value` tags, in this order. */
const LIMIT_KEYWORDS: readonly string[] = [
  "minimum",
  "exclusiveMinimum",
  "maximum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
];
const LIMIT_ORDER: ReadonlyMap<string, number> = new Map(LIMIT_KEYWORDS.map((k, i) => [k, i]));

/** A value on one JSDoc line: strings as written (patterns stay readable), the rest as JSON. */
function docValue(value: unknown, raw = false): string {
  let text: string | undefined;
  try {
    text = raw && typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return "…";
  if (text.length > MAX_DOC_VALUE_CHARS) text = `${text.slice(0, MAX_DOC_VALUE_CHARS)}…`;
  return docLines(text).join(" ");
}

/**
 * JSDoc lines (already escaped) for one property's schema. `fallback` gives
 * the description when the schema itself has none (a `$ref`'s target).
 */
export function schemaDocs(schema: Record<string, unknown>, fallback?: unknown): string[] {
  const lines: string[] = [];
  const describe = (s: unknown): string[] => {
    if (typeof s !== "object" || s === null) return [];
    const r = s as Record<string, unknown>;
    const own = docLines(r.description);
    return own.length > 0 ? own : docLines(r.title);
  };
  const text = describe(schema);
  lines.push(...(text.length > 0 ? text : describe(fallback)));
  if (schema.deprecated === true) lines.push("@deprecated");
  if (typeof schema.format === "string") lines.push(`@format ${docLines(schema.format).join(" ")}`);
  if ("default" in schema) lines.push(`@default ${docValue(schema.default)}`);
  if (Array.isArray(schema.examples)) {
    for (const example of schema.examples.slice(0, MAX_DOC_EXAMPLES)) {
      lines.push(`@example ${docValue(example)}`);
    }
  }
  // One pass over the keys present (usually two or three) instead of a lookup per keyword.
  let limits: string[] | undefined;
  for (const key in schema) if (LIMIT_ORDER.has(key)) (limits ??= []).push(key);
  if (limits === undefined) return lines;
  const tuple = Array.isArray(schema.prefixItems) || Array.isArray(schema.items);
  limits.sort((a, b) => LIMIT_ORDER.get(a)! - LIMIT_ORDER.get(b)!);
  for (const keyword of limits) {
    const value = schema[keyword];
    // A tuple type already says its length; zod's `.int()` bounds only say "safe integer".
    if (tuple && (keyword === "minItems" || keyword === "maxItems")) continue;
    if (value === Number.MAX_SAFE_INTEGER || value === Number.MIN_SAFE_INTEGER) continue;
    if (typeof value === "number" || typeof value === "string" || value === true) {
      lines.push(`@${keyword} ${docValue(value, true)}`);
    }
  }
  return lines;
}
