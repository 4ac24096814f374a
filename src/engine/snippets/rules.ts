/**
 * The rules a snippet is held to: its name, the size of its description and
 * input schema, how large a schema may grow when compiled, and the validator
 * compiled from it.
 *
 * @module
 */
import type { JsonSchema } from "../../connectors/types.ts";
import {
  type CompiledSchema,
  compileJsonSchema,
  type SchemaBounds,
} from "../../connectors/json_schema.ts";
import { CordonError } from "../../errors.ts";

/** Names: a letter, then letters, digits, `_` or `-`; short enough to read in a prompt. */
export const SNIPPET_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** A description is for a model to choose by; a paragraph is plenty. */
export const MAX_SNIPPET_DESCRIPTION_CHARS = 2_000;
/** An input schema is a contract, not a payload. */
export const MAX_INPUT_SCHEMA_CHARS = 64 * 1024;
/**
 * How large an input schema may be in subschemas, nesting and patterns: it
 * comes with a request and compiles on the host's event loop (about 0.1-0.5 ms
 * a node and 1 ms a pattern), so it stays well inside the 50 ms every request
 * may take from it. An input is a handful of named fields.
 */
export const INPUT_SCHEMA_BOUNDS: SchemaBounds = { nodes: 200, depth: 16, patterns: 20 };

/** The name, checked: a letter, then letters, digits, `_` or `-` (at most 64). */
export function checkName(name: unknown): string {
  if (typeof name !== "string" || !SNIPPET_NAME.test(name)) {
    throw new CordonError(
      "invalid_request",
      `Invalid snippet name ${
        JSON.stringify(name)
      }: use a letter, then letters, digits, _ or - (at most 64)`,
    );
  }
  return name;
}

/**
 * Compiles a JSON Schema to a validator, or says why it cannot. A schema being
 * saved is refused for a pattern the linear-time engine cannot run (its author
 * can rewrite it); one saved before such patterns were refused has them
 * ignored.
 */
export function validatorOf(schema: JsonSchema, saving: boolean): CompiledSchema {
  try {
    return compileJsonSchema(schema, {
      unsupportedPatterns: saving ? "refuse" : "ignore",
      bounds: INPUT_SCHEMA_BOUNDS,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new CordonError(
      "invalid_request",
      `The input schema cannot be used: ${message.replace(/^The schema cannot be used: /, "")}`,
    );
  }
}
