/**
 * `defineConnector`: a connector from zod schemas and plain functions.
 * Input is validated on the host before `execute` runs; output is validated
 * when a schema is given.
 *
 * @module
 */
// `@ignore`: zod documents its own types; without it `deno doc --lint` wants them exported.
import {
  /** @ignore */
  z,
} from "zod";
import { CordonError, type ErrorCode, errorInfo } from "../errors.ts";
import type {
  Connector,
  JsonSchema,
  Tool,
  ToolAnnotations,
  ToolContext,
  Validation,
} from "./types.ts";

/** One tool, as written by a connector author. */
export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType>
  extends ToolAnnotations {
  /** What the tool does, for the model: shown in the declarations and searched. */
  description: string;
  /** A human-readable title (`ToolSummary.title`). */
  title?: string;
  /** When to prefer this tool (`ToolSummary.useWhen`). */
  useWhen?: string;
  /** When to avoid this tool (`ToolSummary.avoidWhen`). */
  avoidWhen?: string;
  /** The arguments' schema: checked on the host before `execute`, and the type the model sees. */
  input: I;
  /** The result's schema: when given, each result is checked and the model sees its type. */
  output?: O;
  /** Per-call time limit in ms; else the connector's `timeoutMs`, else 30,000. */
  timeoutMs?: number;
  /** Runs the call with validated input. Leave out for `resolution: "client"`. */
  execute?: (input: z.output<I>, context: ToolContext) => z.input<O> | Promise<z.input<O>>;
  /** Undoes an applied call, given its input and result (rollback calls it, newest first). */
  revert?: (input: z.output<I>, result: z.output<O>) => unknown | Promise<unknown>;
}

/** Options for {@link defineConnector}. */
export interface DefineConnectorOptions {
  /** The global a script calls the connector by (a JavaScript identifier). */
  name: string;
  /** What the connector is for, shown to the model. */
  description: string;
  /** The tools by name: tool `add` of connector `math` is `math.add(…)` in a script. */
  // deno-lint-ignore no-explicit-any
  tools: Record<string, ToolDefinition<any, any>>;
  /** Calls of this connector running at once, across all executions (default 64). */
  concurrency?: number;
  /** Default per-call time limit for its tools, in ms (default 30,000). */
  timeoutMs?: number;
  /** When to prefer the connector (`CapletCard.useWhen` of `caplets.<name>.inspect()`). */
  useWhen?: string;
  /** When to avoid the connector (`CapletCard.avoidWhen`). */
  avoidWhen?: string;
  /** Words to group and find it by (`CapletCard.tags`). */
  tags?: string[];
}

/** Turns zod issues into a message a model can act on, plus details. */
function validationFailure(code: ErrorCode, what: string, error: z.ZodError): Validation {
  const issues = error.issues.map((i) => ({
    path: i.path.map(String).join("."),
    message: i.message,
  }));
  const summary = issues
    .slice(0, 5)
    .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
    .join("; ");
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : "";
  return { ok: false, error: errorInfo(code, `${what}: ${summary}${more}`, { issues }) };
}

function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return json;
}

/**
 * Defines a connector from zod schemas.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineConnector } from "./define.ts";
 * const math = defineConnector({
 *   name: "math",
 *   description: "Arithmetic",
 *   tools: {
 *     add: {
 *       description: "Add two numbers",
 *       input: z.object({ a: z.number(), b: z.number() }),
 *       output: z.number(),
 *       execute: ({ a, b }) => a + b,
 *     },
 *   },
 * });
 * console.assert(math.tools[0].name === "add");
 * ```
 */
export function defineConnector(options: DefineConnectorOptions): Connector {
  const tools: Tool[] = [];
  for (const [name, def] of Object.entries(options.tools)) {
    if (!def || typeof def.description !== "string" || !(def.input instanceof z.ZodType)) {
      throw new CordonError(
        "invalid_request",
        `Cannot define ${options.name}.${name}: a tool needs a description and a zod input schema`,
      );
    }
    const resolution = def.resolution ?? (def.execute ? "host" : "client");
    if (resolution === "host" && typeof def.execute !== "function") {
      throw new CordonError(
        "invalid_request",
        `Cannot define ${options.name}.${name}: execute is missing`,
      );
    }
    const annotations: ToolAnnotations = {};
    for (const key of ["readOnly", "destructive", "requiresApproval", "replay"] as const) {
      if (def[key] !== undefined) (annotations as Record<string, unknown>)[key] = def[key];
    }
    annotations.resolution = resolution;
    const input = def.input;
    const output = def.output;
    const tool: Tool = {
      name,
      description: def.description,
      inputSchema: toJsonSchema(input, "input"),
      annotations,
      validateInput(args) {
        const r = input.safeParse(args);
        return r.success ? { ok: true, value: r.data } : validationFailure(
          "invalid_input",
          `Invalid input for ${options.name}.${name}`,
          r.error,
        );
      },
    };
    if (def.timeoutMs !== undefined) tool.timeoutMs = def.timeoutMs;
    for (const key of ["title", "useWhen", "avoidWhen"] as const) {
      if (typeof def[key] === "string") tool[key] = def[key];
    }
    if (output) {
      tool.outputSchema = toJsonSchema(output, "output");
      tool.validateOutput = (value) => {
        const r = output.safeParse(value);
        return r.success ? { ok: true, value: r.data } : validationFailure(
          "invalid_output",
          `${options.name}.${name} returned a value that does not match its output schema`,
          r.error,
        );
      };
    }
    if (def.execute) tool.execute = (args, ctx) => def.execute!(args, ctx);
    if (def.revert) tool.revert = (args, result) => def.revert!(args, result);
    tools.push(tool);
  }
  const connector: Connector = { name: options.name, description: options.description, tools };
  if (options.concurrency !== undefined) connector.concurrency = options.concurrency;
  if (options.timeoutMs !== undefined) connector.timeoutMs = options.timeoutMs;
  if (typeof options.useWhen === "string") connector.useWhen = options.useWhen;
  if (typeof options.avoidWhen === "string") connector.avoidWhen = options.avoidWhen;
  if (Array.isArray(options.tags)) connector.tags = options.tags.map(String);
  return connector;
}
