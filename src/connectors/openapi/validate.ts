/**
 * Checking a tool's arguments against its JSON Schema with
 * `z.fromJSONSchema`, compiled on first use so a large API costs nothing for
 * the operations a script never calls.
 *
 * @module
 */
import { z } from "zod";
import { errorInfo } from "../../errors.ts";
import type { JsonSchema, Validation } from "../types.ts";

/** Issues quoted in the message; the rest are counted (all are in `details.issues`). */
export const MAX_QUOTED_ISSUES = 5;

/**
 * A zod schema for `schema`. Should zod refuse it anyway (a keyword the
 * converter does not know), the arguments are still checked for their
 * property names and required properties.
 */
export function compileSchema(schema: JsonSchema): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0], {
      registry: z.registry(),
    });
  } catch {
    const properties = Object.fromEntries(
      Object.keys((schema.properties ?? {}) as Record<string, unknown>).map((k) => [k, {}]),
    );
    return z.fromJSONSchema({
      type: "object",
      properties,
      required: Array.isArray(schema.required) ? schema.required as string[] : [],
      additionalProperties: false,
    });
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
  let compiled: z.ZodType | undefined;
  return (args) => {
    compiled ??= compileSchema(schema);
    const result = compiled.safeParse(args ?? {});
    if (result.success) return { ok: true, value: args ?? {} };
    const issues = result.error.issues.map((i) => ({
      path: i.path.map(String).join("."),
      message: i.message,
    }));
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
