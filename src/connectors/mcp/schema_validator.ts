/**
 * The JSON Schema validator the MCP client checks a tool's structured output
 * with. The SDK's default is Ajv on V8's backtracking regular expressions, so
 * a server's `outputSchema` pattern could hold the host's event loop for
 * seconds on a result a script steered; this one is Cordon's validator for
 * schemas from outside (RE2 patterns, linear `uniqueItems`).
 *
 * @module
 */
import type { Client } from "./sdk.ts";
import { compileJsonSchema } from "../json_schema.ts";
import type { JsonSchema } from "../types.ts";

/** What the SDK's `Client` takes as `jsonSchemaValidator`. */
type SdkSchemaValidator = NonNullable<
  NonNullable<ConstructorParameters<typeof Client>[1]>["jsonSchemaValidator"]
>;

/** Issues named in one failure message: the SDK puts it into an error a script reads. */
const MAX_ISSUES_IN_MESSAGE = 5;

/**
 * Validators for the MCP client. A schema that does not compile checks
 * nothing (the SDK would otherwise fail the whole tool list over one tool).
 */
export const mcpSchemaValidator: SdkSchemaValidator = {
  getValidator(schema) {
    let compiled: ReturnType<typeof compileJsonSchema> | undefined;
    try {
      compiled = compileJsonSchema(schema as JsonSchema);
    } catch {
      compiled = undefined;
    }
    return (input) => {
      const issues = compiled?.check(input) ?? [];
      if (issues.length === 0) {
        return { valid: true, data: input as never, errorMessage: undefined };
      }
      const message = issues.slice(0, MAX_ISSUES_IN_MESSAGE)
        .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
        .join("; ");
      return { valid: false, data: undefined, errorMessage: message };
    };
  },
};
