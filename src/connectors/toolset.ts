/**
 * `toolSetConnector`: a connector from a Vercel AI SDK `ToolSet` (the record of `tool({...})`s
 * passed to `generateText`), so tools written for the AI SDK run unchanged behind Cordon.
 *
 * How the SDK's fields map:
 *
 * | AI SDK | Cordon |
 * | --- | --- |
 * | `inputSchema` / `outputSchema` (zod) | `z.toJSONSchema`, checked with zod |
 * | `jsonSchema({...}, { validate })` | its JSON Schema, checked with `validate`, else with Cordon's JSON Schema validator (RE2 patterns) |
 * | `needsApproval: true` or a function | `requiresApproval: true` (see below) |
 * | no `execute` | `resolution: "client"`: the result is supplied with `resolveExecution()` (`clientTools: "skip"` leaves them out) |
 * | `execute(input, { toolCallId, messages, abortSignal, context })` | called with the call's signal |
 * | `execute` returning an async iterable | the last value it yields (the SDK's final output) |
 * | `type: "provider"` executed by the provider | refused: only the model provider can run it |
 *
 * `needsApproval` as a function is treated as `true`. Cordon decides whether a call needs
 * approval before the call is logged and the execution pauses, from the tool's annotations,
 * and has no per-call hook to ask the function; asking a person when the function might have
 * said no is a safe mistake, skipping an approval it would have demanded is not. (The SDK
 * itself deprecates per-tool `needsApproval`.)
 *
 * Validators that answer with a promise (async zod refinements, an async `validate`) cannot run
 * in `Tool.validateInput`, which is synchronous: the check then runs at the start of `execute`,
 * and a failure arrives as `invalid_input` all the same. For a client-resolved
 * tool an async output check cannot run at all and `resolve()` takes the value as given.
 * `toModelOutput`, `onInputStart`, `onInputDelta` and `onInputAvailable` are for a model
 * conversation and are not called.
 *
 * @module
 */
// `@ignore`: the AI SDK documents `ToolSet`; without it `deno doc --lint` wants it exported.
import type {
  /** @ignore */
  ToolSet,
} from "ai";
import { CordonError } from "../errors.ts";
import { newId } from "../ids.ts";
import { type AdaptedSchema, adaptSchema, isThenable } from "./toolset_schema.ts";
import type { Connector, Tool, ToolAnnotations, ToolContext, Validation } from "./types.ts";

/** Options for {@link toolSetConnector}. */
export interface ToolSetConnectorOptions {
  /** The connector's name, which is the global the script calls it by. */
  name: string;
  /** What the tools are for; defaults to a list of their names. */
  description?: string;
  /** The AI SDK tools, by name (tool names must be identifiers). */
  tools: ToolSet;
  /**
   * The AI SDK 7 tool `context` given to every `execute` and to description functions. It is
   * the same for every call: Cordon has no per-call context.
   */
  context?: unknown;
  /** Calls of this connector running at once, across all executions. */
  concurrency?: number;
  /** Default per-call time limit for its tools, in ms. */
  timeoutMs?: number;
  /**
   * What to do with tools that have no `execute` (client-side tools):
   * - `"pause"` (the default, "Option B"): the script may call them; each call pauses the
   *   execution with `resolution: "client"` until `resolveExecution()` supplies its result.
   * - `"skip"` ("Option A"): they are left out of the connector (no binding, no declaration),
   *   with one `console.warn` naming them; the model calls them as top-level tools instead.
   */
  clientTools?: "pause" | "skip";
}

/** The fields of an AI SDK tool this adapter reads; the SDK's own type is a wide union. */
interface AiToolFields {
  type?: "function" | "dynamic" | "provider";
  id?: string;
  isProviderExecuted?: boolean;
  description?: string | ((options: { context: unknown }) => string);
  inputSchema?: unknown;
  outputSchema?: unknown;
  needsApproval?: boolean | ((...args: never[]) => unknown);
  execute?: (input: unknown, options: AiExecutionOptions) => unknown;
}

/** What the AI SDK passes to `execute` besides the input (`ToolExecutionOptions`). */
interface AiExecutionOptions {
  toolCallId: string;
  messages: unknown[];
  abortSignal?: AbortSignal;
  context: unknown;
}

/** Input whose check answered with a promise; `execute` awaits it first. */
class PendingCheck {
  constructor(readonly result: Promise<Validation>) {}
}

function raise(v: Validation & { ok: false }): never {
  throw new CordonError(v.error.code, v.error.message, { details: v.error.details });
}

/** The final output of an `execute`, awaiting a promise or draining an async iterable. */
async function finalOutput(result: unknown, signal: AbortSignal): Promise<unknown> {
  const iterable = result as AsyncIterable<unknown> | null;
  if (typeof iterable?.[Symbol.asyncIterator] !== "function") return await result;
  let last: unknown;
  for await (const value of iterable!) {
    signal.throwIfAborted();
    last = value;
  }
  return last;
}

function adaptTool(
  connector: string,
  name: string,
  ai: AiToolFields,
  context: unknown,
): { tool: Tool; input: AdaptedSchema; output?: AdaptedSchema } {
  const path = `${connector}.${name}`;
  if (typeof ai !== "object" || ai === null) {
    throw new CordonError("invalid_request", `Cannot adapt ${path}: it is not an AI SDK tool`);
  }
  if (ai.type === "provider" && ai.isProviderExecuted) {
    throw new CordonError(
      "invalid_request",
      `Cannot adapt ${path}: provider tool ${ai.id} runs at the model provider, not on this host; leave it out of the tool set`,
    );
  }
  const input = adaptSchema(ai.inputSchema, "input", {
    code: "invalid_input",
    label: `Invalid input for ${path}`,
  });
  const output = ai.outputSchema === undefined
    ? undefined
    : adaptSchema(ai.outputSchema, "output", {
      code: "invalid_output",
      label: `${path} returned a value that does not match its output schema`,
    });
  const execute = typeof ai.execute === "function" ? ai.execute : undefined;
  const annotations: ToolAnnotations = { resolution: execute ? "host" : "client" };
  if (ai.needsApproval === true || typeof ai.needsApproval === "function") {
    annotations.requiresApproval = true;
  }
  const description = typeof ai.description === "function"
    ? ai.description({ context })
    : ai.description ?? ai.id ?? "";
  const tool: Tool = {
    name,
    description: String(description),
    inputSchema: input.json,
    annotations,
    validateInput(args) {
      const checked = input.check(args);
      if (!isThenable(checked)) return checked;
      const pending = Promise.resolve(checked);
      pending.catch(() => {}); // awaited by execute; never left unhandled if execute is not reached
      return { ok: true, value: new PendingCheck(pending) };
    },
  };
  if (output) {
    tool.outputSchema = output.json;
    // Synchronous checks happen here; an async one already ran in `execute` (host tools) or
    // cannot run (client tools), so its value passes.
    tool.validateOutput = (value) => {
      const checked = output.check(value);
      if (!isThenable(checked)) return checked;
      Promise.resolve(checked).catch(() => {});
      return { ok: true, value };
    };
  }
  if (execute) {
    tool.execute = async (args: unknown, ctx: ToolContext) => {
      let value = args;
      if (args instanceof PendingCheck) {
        const v = await args.result;
        if (!v.ok) raise(v);
        value = v.value;
      }
      const options: AiExecutionOptions = {
        toolCallId: newId("call"),
        messages: [],
        abortSignal: ctx.signal,
        context,
      };
      const result = await finalOutput(execute(value, options), ctx.signal);
      const checked = output?.check(result);
      if (!isThenable(checked)) return result;
      const v = await checked;
      return v.ok ? v.value : raise(v);
    };
  }
  const adapted: { tool: Tool; input: AdaptedSchema; output?: AdaptedSchema } = { tool, input };
  if (output) adapted.output = output;
  return adapted;
}

/** The tool set's entries, without its execute-less tools under `clientTools: "skip"`. */
function clientToolsKept(options: ToolSetConnectorOptions): [string, unknown][] {
  const entries: [string, unknown][] = Object.entries(options.tools ?? {});
  const mode = options.clientTools ?? "pause";
  if (mode !== "pause" && mode !== "skip") {
    throw new CordonError(
      "invalid_request",
      `Unknown clientTools "${mode}" for ${options.name}; use "pause" or "skip"`,
    );
  }
  if (mode === "pause") return entries;
  const isClient = (ai: unknown) =>
    typeof ai === "object" && ai !== null && typeof (ai as AiToolFields).execute !== "function" &&
    !(ai as AiToolFields).isProviderExecuted;
  const skipped = entries.filter(([, ai]) => isClient(ai)).map(([name]) => name);
  if (skipped.length > 0) {
    console.warn(
      `toolSetConnector(${options.name}): tools without execute are not available to code ` +
        `(clientTools: "skip"): ${skipped.join(", ")}. The model can still call them as ` +
        `top-level tools; clientTools: "pause" lets code call them and resolveExecution() ` +
        `answer them.`,
    );
  }
  return entries.filter(([, ai]) => !isClient(ai));
}

/**
 * Adapts an AI SDK `ToolSet` to a {@link Connector}. Throws `invalid_request` for a tool it
 * cannot adapt. `start()` waits for schemas the SDK gives as promises; until then such a tool's
 * `inputSchema` is `{}`.
 *
 * @example
 * ```ts
 * import { jsonSchema, tool } from "ai";
 * import { z } from "zod";
 * import { toolSetConnector } from "./toolset.ts";
 * const weather = toolSetConnector({
 *   name: "weather",
 *   tools: {
 *     forecast: tool({
 *       description: "Forecast for a city",
 *       inputSchema: z.object({ city: z.string() }),
 *       execute: ({ city }) => ({ city, tempC: 21 }),
 *     }),
 *     confirm: tool({
 *       description: "Ask the user to confirm",
 *       inputSchema: jsonSchema<{ question: string }>({ type: "object", properties: { question: { type: "string" } } }),
 *       outputSchema: jsonSchema<boolean>({ type: "boolean" }),
 *     }),
 *   },
 * });
 * await weather.start?.();
 * console.assert(weather.tools[1].annotations.resolution === "client");
 * ```
 */
export function toolSetConnector(options: ToolSetConnectorOptions): Connector {
  const entries = clientToolsKept(options);
  const context = options.context ?? {};
  const adapted = entries.map(([name, ai]) =>
    adaptTool(options.name, name, ai as unknown as AiToolFields, context)
  );
  const tools = adapted.map((a) => a.tool);
  const connector: Connector = {
    name: options.name,
    description: options.description ?? `AI SDK tools: ${entries.map(([n]) => n).join(", ")}`,
    tools,
    async start() {
      try {
        await Promise.all(adapted.map(async ({ tool, input, output }) => {
          await input.ready;
          tool.inputSchema = input.json;
          if (output) {
            await output.ready;
            tool.outputSchema = output.json;
          }
        }));
      } catch (err) {
        throw new CordonError(
          "connector_unavailable",
          `Cannot start ${options.name}: a tool schema failed to load: ${
            err instanceof Error ? err.message : String(err)
          }`,
          { cause: err },
        );
      }
    },
  };
  if (options.concurrency !== undefined) connector.concurrency = options.concurrency;
  if (options.timeoutMs !== undefined) connector.timeoutMs = options.timeoutMs;
  return connector;
}
