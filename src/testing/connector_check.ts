/**
 * Static checks of a connector, as a model will meet it: every tool
 * described, schemas that say what the values are, and sample outputs
 * checked against a tool's output schema.
 *
 * @module
 */
import type { Connector, JsonSchema, Tool } from "../connectors/types.ts";
import { schemaToTs } from "../connectors/typegen/mod.ts";
import { type CompiledSchema, compileJsonSchema } from "../connectors/json_schema.ts";

/** Schema levels walked for untyped values: deeper than the declarations go (8). */
const MAX_WALK_DEPTH = 10;

/** One thing about a connector that will mislead or fail a model. */
export interface ConnectorProblem {
  /**
   * Where: `weather` (the connector), `weather.forecast` (a tool),
   * `weather.forecast input.when` (a value in a schema), or
   * `declarations line 12` (the generated TypeScript).
   */
  where: string;
  /** What is wrong and what to do about it. */
  message: string;
}

/** The answer of {@link checkOutput}: the value as the schema parses it, or why it does not match. */
export type OutputCheck = { ok: true; value: unknown } | { ok: false; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A schema node that says nothing: `{}` or `true`, without even a description. */
function isUntyped(node: unknown): boolean {
  if (node === true) return true;
  return isRecord(node) && Object.keys(node).every((k) => k === "$schema");
}

/** Paths of the values in `schema` that a model would see as `unknown`. */
function untypedPaths(schema: unknown, path: string, depth = 0): string[] {
  if (isUntyped(schema)) return [path];
  if (!isRecord(schema) || depth > MAX_WALK_DEPTH) return [];
  const out: string[] = [];
  const walk = (node: unknown, at: string) => out.push(...untypedPaths(node, at, depth + 1));
  if (isRecord(schema.properties)) {
    for (const [key, node] of Object.entries(schema.properties)) walk(node, `${path}.${key}`);
  }
  // `additionalProperties: {}` is a loose object or a record of anything: meant, so not flagged
  // (a record of z.date() looks the same and goes unflagged too).
  const extra = schema.additionalProperties;
  if (isRecord(extra) && !isUntyped(extra)) walk(extra, `${path}[key]`);
  if (Array.isArray(schema.prefixItems)) {
    schema.prefixItems.forEach((node, i) => walk(node, `${path}[${i}]`));
  }
  if (schema.items !== undefined) walk(schema.items, `${path}[]`);
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const list = schema[key];
    if (Array.isArray(list)) { for (const node of list) walk(node, path); }
  }
  return [...new Set(out)];
}

/** Keywords that describe a value without constraining it. */
const ANNOTATIONS = new Set(["$schema", "title", "description", "examples", "default"]);

/** Problems of one schema (`input` or `output`) of a tool. */
function schemaProblems(where: string, io: "input" | "output", schema: JsonSchema) {
  const problems: ConnectorProblem[] = [];
  const constrains = isRecord(schema) && Object.keys(schema).some((k) => !ANNOTATIONS.has(k));
  if (constrains && schemaToTs(schema) === "unknown") {
    // The typegen gave up on the whole schema (an unsupported keyword, a `$ref` loop, …).
    problems.push({
      where: `${where} ${io}`,
      message: `The ${io} schema converts to the TypeScript type \`unknown\`, so the model is ` +
        "told nothing about it; use plain JSON Schema (type, properties, items, anyOf, enum)",
    });
    return problems;
  }
  for (const path of untypedPaths(schema, io)) {
    problems.push({
      where: `${where} ${path}`,
      message: "This value's schema is empty, so the model sees `unknown`. zod types with no " +
        "JSON Schema form (z.date(), z.bigint(), z.map(), z.custom()) become empty schemas; " +
        "use a representable type, or .describe() the value if `unknown` is meant",
    });
  }
  return problems;
}

/**
 * Checks a connector the way a model will read it: the connector and every
 * tool have a description, each input and output schema converts to a
 * TypeScript type, and no value in a schema is left untyped (an empty
 * schema, which the model sees as `unknown`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineConnector } from "../connectors/define.ts";
 * import { checkConnector } from "./connector_check.ts";
 *
 * const events = defineConnector({
 *   name: "events",
 *   description: "The team calendar",
 *   tools: {
 *     add: { description: "", input: z.object({ at: z.date() }), execute: () => "ok" },
 *   },
 * });
 * assert.deepEqual(checkConnector(events).map((p) => p.where), ["events.add", "events.add input.at"]);
 * ```
 *
 * @param connector The connector, started if it needs starting (MCP tools are listed on start).
 * @returns The problems found; empty when there are none.
 */
export function checkConnector(connector: Connector): ConnectorProblem[] {
  const problems: ConnectorProblem[] = [];
  if (!connector.description?.trim()) {
    problems.push({
      where: connector.name,
      message: "The connector has no description; the model reads it to choose a connector",
    });
  }
  for (const tool of connector.tools) {
    const where = `${connector.name}.${tool.name}`;
    if (!tool.description?.trim()) {
      problems.push({
        where,
        message: "The tool has no description; it is the model's only guide to when to call it",
      });
    }
    problems.push(...schemaProblems(where, "input", tool.inputSchema));
    if (tool.outputSchema) problems.push(...schemaProblems(where, "output", tool.outputSchema));
  }
  return problems;
}

/**
 * Checks a sample output against a tool's output schema: the tool's own
 * validator where it has one (`defineConnector` tools: the zod schema, as
 * the runtime applies it), otherwise its JSON output schema read with zod.
 *
 * @param tool The tool, e.g. from `kit.tool("weather.forecast")`.
 * @param sample A value the tool might return.
 * @returns The value as the schema parses it, or a message naming each mismatch.
 * @throws {TypeError} When the tool has no output schema, or its JSON Schema cannot be compiled.
 */
export function checkOutput(tool: Tool, sample: unknown): OutputCheck {
  if (tool.validateOutput) {
    const v = tool.validateOutput(sample);
    if (v.ok) return { ok: true, value: v.value };
    const issues = v.error.details?.issues;
    return { ok: false, message: Array.isArray(issues) ? showIssues(issues) : v.error.message };
  }
  if (!tool.outputSchema) {
    throw new TypeError(
      `Cannot check an output of "${tool.name}": the tool has no output schema`,
    );
  }
  let schema: CompiledSchema;
  try {
    schema = compileJsonSchema(tool.outputSchema);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new TypeError(`Cannot check an output of "${tool.name}": ${why}`);
  }
  const issues = schema.check(sample);
  if (issues.length === 0) return { ok: true, value: sample };
  return { ok: false, message: showIssues(issues) };
}

/** `days.0.highC: Invalid input: expected number, received string; …` */
function showIssues(issues: readonly { path?: unknown; message?: unknown }[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : String(i.message))).join("; ");
}
