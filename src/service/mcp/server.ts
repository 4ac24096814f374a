/**
 * {@link createMcpFront}: a runtime as an MCP server: `execute`, `search` and
 * `describe`, `result` and `wait` to follow a run later, and the code
 * executor's tools.
 *
 * @module
 */
import { registerProgramTools } from "./programs.ts";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type ElicitRequest,
  ElicitResultSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { CLIENT_INFO } from "../../connectors/mcp/session.ts";
import type { Runtime } from "../../engine/runtime/types.ts";
import type { ExecuteRequest } from "../../engine/execution/types.ts";
import {
  describeToolResult,
  errorToolResult,
  outcomeToolResult,
  searchToolResult,
} from "./render.ts";
import {
  DEFAULT_WAIT_MS,
  DESCRIBE_INPUT,
  type DescribeArgs,
  EXECUTE_INPUT,
  EXECUTE_OUTPUT,
  type ExecuteArgs,
  RESULT_INPUT,
  SEARCH_INPUT,
  type SearchArgs,
  WAIT_INPUT,
} from "./schemas.ts";
import type { Ask, ElicitParams } from "./decide.ts";
import { type DriveOptions, driveRun } from "./drive.ts";
import { awaitOutcome, readOutcome } from "./outcome.ts";
import { RunProgress } from "./progress.ts";

/** Options for {@link createMcpFront}, `mcpHttpHandler()` and `serveMcpStdio()`. */
export interface McpFrontOptions {
  /** The namespace executions run in and whose snippets search and describe see. */
  namespace?: string;
  /** The server name clients see (default `cordon`). */
  name?: string;
  /** The server version clients see (default Cordon's). */
  version?: string;
  /**
   * Admission of `execute` runs: waits for a slot and returns the function that gives it back,
   * or throws a typed error (`too_many_requests`) that the tool answers as an error result. The
   * service passes its gate, so MCP runs count against the same `concurrency` as HTTP runs.
   */
  admit?: () => Promise<() => void>;
  /**
   * Whether a paused call that needs approval is asked about in the client, when it can be
   * asked (elicitation). Default `true`; the service passes whether the key has the `approve`
   * scope, so a key that may only run code cannot approve its own calls. A value for a
   * client-resolved call is asked for either way.
   */
  approvals?: boolean;
  /**
   * Whether the client can be asked (it declared `elicitation` with form support). Default: what
   * the client declared to this server at `initialize`. The stateless HTTP handler, whose server
   * never sees `initialize`, says what the client declared then (false for a JSON-only client,
   * which no request can reach).
   */
  clientElicits?: boolean;
}

/** What a tool handler gets besides its arguments. */
type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Whether declared client capabilities include form elicitation (an empty object means form). */
export function elicitsForms(capabilities: { elicitation?: object } | undefined): boolean {
  const e = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/** Appended to the runtime's model description: the front offers discovery without a run. */
const DISCOVERY_HINT =
  "Outside a program, this server's `search` and `describe` tools answer the same questions.";

/**
 * Builds an MCP server over `runtime` with these tools (and the code executor's):
 *
 * - `execute` runs code (`{ code, input?, timeoutMs? }`). Its description is
 *   {@link Runtime.modelDescription}: what the sandbox offers and the
 *   connectors by name; the model finds tools and their TypeScript
 *   signatures with `search` and `describe`. The result is the execution
 *   result with the documented run meta only as `structuredContent` (the tool's
 *   `outputSchema`) and one readable text block; `isError` when the run
 *   ended in `error` or `rejected`. When the run pauses and the client declared
 *   elicitation, each waiting call is asked about in the client (approve or reject with a
 *   reason; a value as JSON text) and the run continues in the same call; declined or
 *   unanswered, it stays paused (not an error), and the answer names `wait` and `result`.
 *   With `_meta.progressToken`, `notifications/progress` come while it runs.
 * - `result` (`{ executionId }`) answers where a run of this namespace is now, and `wait`
 *   (`{ executionId, timeoutMs? }`, at most 120 s) answers once it ends; another namespace's id
 *   is `execution_not_found`, as an unknown one.
 * - `search` (`{ query, limit?, cursor? }`) ranks tools and snippets.
 * - `describe` (`{ path }`) gives one tool's or snippet's signature; an
 *   unknown path is an error result with its code (`tool_not_found`, …).
 *
 * The description is read once, here: a server built before the runtime's
 * tools change keeps the old one (the stateless HTTP handler builds a new
 * server per request, so it stays current).
 *
 * @example
 * ```ts
 * import { createRuntime } from "../../../mod.ts";
 * import { createMcpFront } from "./mod.ts";
 *
 * await using runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
 * const server = await createMcpFront(runtime, { name: "my-tools" });
 * await server.close();
 * ```
 */
export async function createMcpFront(
  runtime: Runtime,
  options: McpFrontOptions = {},
): Promise<McpServer> {
  const inNamespace = options.namespace === undefined ? {} : { namespace: options.namespace };
  const server = new McpServer({
    name: options.name ?? "cordon",
    version: options.version ?? CLIENT_INFO.version,
  });
  const description = `${await runtime.modelDescription(inNamespace)}\n${DISCOVERY_HINT}`;

  const namespace = options.namespace ?? "default";
  /** How a tool call may carry its runs on: asking the client when it can be asked. */
  const driving = (extra: ToolExtra): DriveOptions => {
    const elicits = options.clientElicits ?? elicitsForms(server.server.getClientCapabilities());
    const ask: Ask = (params: ElicitParams, o) =>
      extra.sendRequest(
        { method: "elicitation/create", params } as unknown as ElicitRequest,
        ElicitResultSchema,
        o,
      );
    return {
      runtime,
      namespace,
      inNamespace,
      admit: options.admit,
      approvals: options.approvals ?? true,
      signal: extra.signal,
      ...(elicits ? { ask } : {}),
    };
  };

  server.registerTool("execute", {
    title: "Run TypeScript with the tools",
    description,
    inputSchema: EXECUTE_INPUT,
    outputSchema: EXECUTE_OUTPUT,
    // The code may call any tool, including ones that write or reach the world.
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  }, async (
    { code, language, input, timeoutMs, session, sessionId }: ExecuteArgs,
    extra: ToolExtra,
  ) => {
    const request: ExecuteRequest = { code, ...inNamespace };
    // W3C trace context as MCP carries it: `params._meta.traceparent` (ignored when malformed).
    const traceparent = extra?._meta?.traceparent;
    if (typeof traceparent === "string") request.traceparent = traceparent;
    if (language !== undefined) request.language = language;
    if (input !== undefined) request.input = input;
    if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
    if (session !== undefined) request.session = session;
    if (sessionId !== undefined) request.sessionId = sessionId;
    using progress = RunProgress.of(runtime, extra);
    try {
      const { out, note } = await driveRun(
        () => runtime.execute(request, { onStart: (id) => progress?.follow(id) }),
        driving(extra),
      );
      return outcomeToolResult(out, note);
    } catch (err) {
      // Refused at the gate, or a malformed request: there is no execution to report.
      return errorToolResult(err, false);
    }
  });

  server.registerTool("result", {
    title: "Read a run's outcome",
    description:
      "Where an execution is now, in the shape `execute` answers: its status, result or error, and the calls waiting for a decision. For a run `execute` left paused or running.",
    inputSchema: RESULT_INPUT,
    outputSchema: EXECUTE_OUTPUT,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, async ({ executionId }: { executionId: string }) => {
    try {
      return outcomeToolResult(await readOutcome(runtime, executionId, namespace));
    } catch (err) {
      return errorToolResult(err, false);
    }
  });

  server.registerTool(
    "wait",
    {
      title: "Wait for a run to end",
      description:
        `Wait until an execution ends (completed, error, rejected) or timeoutMs passes (default ${DEFAULT_WAIT_MS} ms), then answer as \`result\` does; a run that waits for a person stays paused until they decide.`,
      inputSchema: WAIT_INPUT,
      outputSchema: EXECUTE_OUTPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (
      { executionId, timeoutMs }: { executionId: string; timeoutMs?: number },
      extra: ToolExtra,
    ) => {
      using progress = RunProgress.of(runtime, extra);
      progress?.follow(executionId);
      try {
        return outcomeToolResult(
          await awaitOutcome(runtime, executionId, namespace, {
            timeoutMs: timeoutMs ?? DEFAULT_WAIT_MS,
            signal: extra.signal,
          }),
        );
      } catch (err) {
        return errorToolResult(err, false);
      }
    },
  );

  registerProgramTools(server, runtime, inNamespace, driving);

  server.registerTool("search", {
    title: "Search tools and snippets",
    description:
      "Rank the tools and saved snippets the `execute` program can call for a query; returns paths for `describe`.",
    inputSchema: SEARCH_INPUT,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, async ({ query, limit, cursor }: SearchArgs) => {
    try {
      return searchToolResult(await runtime.search(query, { limit, cursor, ...inNamespace }));
    } catch (err) {
      return errorToolResult(err);
    }
  });

  server.registerTool("describe", {
    title: "Describe a tool or snippet",
    description:
      "The exact TypeScript signature, input and output types and an example call of `connector.tool` or `snippet:name`.",
    inputSchema: DESCRIBE_INPUT,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, async ({ path }: DescribeArgs) => {
    try {
      return describeToolResult(await runtime.describe(path, inNamespace));
    } catch (err) {
      return errorToolResult(err);
    }
  });

  return server;
}
