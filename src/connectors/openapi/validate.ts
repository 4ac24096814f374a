/**
 * Checking a tool's arguments against its JSON Schema with the one validator
 * for schemas from outside (`../json_schema.ts`), compiled on first use so a
 * large API costs nothing for the operations a script never calls.
 *
 * @module
 */
import { errorInfo } from "../../errors.ts";
import { compileJsonSchema, type SchemaIssue } from "../json_schema.ts";
import type { JsonSchema, Validation } from "../types.ts";

/** Issues quoted in the message; the rest are counted (all are in `details.issues`). */
export const MAX_QUOTED_ISSUES = 5;

/**
 * A checker for `schema`. Should it not compile anyway (a `$ref` it cannot
 * resolve, a keyword value Ajv refuses), the arguments are still checked for
 * their property names and required properties. Patterns the linear-time
 * engine cannot run are left unchecked: the API still checks what it receives.
 */
export function compileSchema(schema: JsonSchema): (value: unknown) => SchemaIssue[] {
  try {
    const compiled = compileJsonSchema(schema);
    return (value) => compiled.check(value);
  } catch {
    const properties = Object.fromEntries(
      Object.keys((schema.properties ?? {}) as Record<string, unknown>).map((k) => [k, {}]),
    );
    const fallback = compileJsonSchema({
      type: "object",
      properties,
      required: Array.isArray(schema.required) ? schema.required as string[] : [],
      additionalProperties: false,
    });
    return (value) => fallback.check(value);
  }
}

/**
 * A validator for a tool's arguments. On success the arguments are passed on
 * unchanged (no defaults filled, no keys dropped): the API receives what the
 * script sent.
 *
 * @example
 * ```ts
 * import { inputValidator } from "./validate.ts";
 * const check = inputValidator({ type: "object", properties: { id: { type: "integer" } }, required: ["id"] }, "pets.get");
 * console.assert(check({ id: 1 }).ok);
 * console.assert(!check({ id: "1" }).ok);
 * ```
 */
export function inputValidator(schema: JsonSchema, label: string): (args: unknown) => Validation {
  let compiled: ((value: unknown) => SchemaIssue[]) | undefined;
  return (args) => {
    compiled ??= compileSchema(schema);
    const issues = compiled(args ?? {});
    if (issues.length === 0) return { ok: true, value: args ?? {} };
    const quoted = issues.slice(0, MAX_QUOTED_ISSUES)
      .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
      .join("; ");
    const more = issues.length > MAX_QUOTED_ISSUES
      ? ` (and ${issues.length - MAX_QUOTED_ISSUES} more)`
      : "";
    return {
      ok: false,
      error: errorInfo("invalid_input", `Invalid input for ${label}: ${quoted}${more}`, { issues }),
    };
  };
}
