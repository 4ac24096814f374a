/**
 * The zod schemas of the MCP front's tools: what `execute`, `search` and
 * `describe` take, and the shape of `execute`'s structured result.
 *
 * Nested records are loose objects: their JSON Schema allows extra keys, so
 * a field the engine adds later does not make clients reject every result
 * (the SDK's client validates `structuredContent` against `outputSchema`).
 *
 * @module
 */
import { z } from "zod";

/** What the `execute` tool takes. */
export const EXECUTE_INPUT = z.object({
  code: z.string().describe(
    "TypeScript: a script body (top-level await, `return` gives the result) or `async (input) => { … }`",
  ),
  language: z.enum(["typescript", "ts", "javascript", "js", "python", "py", "bash", "sh"])
    .optional().describe(
      "`python` (`py`): Python on Pyodide; connectors are awaitable globals " +
        '(`await github.list_pull_requests(owner="x")`), the last expression is the result, ' +
        "`INPUT` holds the input. `bash` (`sh`): a bash script in-process. Default TypeScript",
    ),
  input: z.unknown().optional().describe("Passed to the code as `input`"),
  timeoutMs: z.number().int().positive().optional().describe(
    "Wall-clock limit for this run (ms), up to the server's maximum",
  ),
  session: z.boolean().optional().describe(
    "true: keep this sandbox's variables for later runs; the answer gives its sessionId",
  ),
  sessionId: z.string().max(200).optional().describe(
    "Run in an earlier session: its top-level variables, functions and classes are still there",
  ),
});

/** The `execute` tool's arguments. */
export type ExecuteArgs = z.infer<typeof EXECUTE_INPUT>;

/** What the `search` tool takes. */
export const SEARCH_INPUT = z.object({
  query: z.string().describe('What you need, in a few words ("open an issue on the repo")'),
  limit: z.number().int().positive().optional().describe("Results per page (default 10)"),
  cursor: z.string().optional().describe("`nextCursor` of the previous page of the same query"),
});

/** The `search` tool's arguments. */
export type SearchArgs = z.infer<typeof SEARCH_INPUT>;

/** What the `describe` tool takes. */
export const DESCRIBE_INPUT = z.object({
  path: z.string().describe("`connector.tool` or `snippet:name`, as search returns it"),
});

/** The `describe` tool's arguments. */
export type DescribeArgs = z.infer<typeof DESCRIBE_INPUT>;

const ERROR_INFO = z.looseObject({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  location: z.looseObject({ line: z.number(), column: z.number() }).optional(),
});

const LOG_ENTRY = z.looseObject({ level: z.string(), message: z.string(), atMs: z.number() });

const CALL_RECORD = z.looseObject({
  seq: z.number(),
  kind: z.string(),
  connector: z.string(),
  tool: z.string(),
  args: z.unknown().optional(),
  state: z.string(),
  durationMs: z.number(),
  error: ERROR_INFO.optional(),
  needs: z.string().optional(),
});

const PENDING_ACTION = z.looseObject({
  executionId: z.string(),
  seq: z.number(),
  connector: z.string(),
  tool: z.string(),
  args: z.unknown().optional(),
  resolution: z.enum(["client", "approval"]).optional()
    .describe("client: a value the client supplies (resolve); approval: approve or reject"),
  needs: z.string(),
  clientConnected: z.boolean().optional()
    .describe("Whether a client listens for the execution now (an open event stream)"),
  requestedAt: z.number(),
});

const DIAGNOSTIC = z.looseObject({
  code: z.string(),
  message: z.string(),
  severity: z.string(),
  line: z.number().optional(),
  column: z.number().optional(),
});

/** The run meta of the Code Mode API (`CodeModeRunMeta`). */
const RUN_META = z.looseObject({
  runId: z.string(),
  traceId: z.string(),
  declarationHash: z.string(),
  durationMs: z.number(),
  timeoutMs: z.number(),
  maxTimeoutMs: z.number(),
  sessionId: z.string().optional(),
  sessionStatus: z.enum(["created", "reused"]).optional(),
  recoveryRef: z.string().optional(),
  resultRef: z.string().optional().describe("The stored result, when it was over the inline limit"),
  logRef: z.string().optional().describe("Reads every console line, when logs were cut"),
});

/**
 * The `structuredContent` of `execute`, `result` and `wait`: the execution's outcome with the
 * documented run meta only. One object for every status (MCP wants an object schema, not a
 * union), so `result`, `pending` and `error` are optional and `status` says which is set.
 * `running` and `rolled_back` come from `result` and `wait`, and from `execute` when a decision
 * made elsewhere carried the run on.
 */
export const EXECUTE_OUTPUT = z.looseObject({
  status: z.enum(["completed", "paused", "error", "rejected", "running", "rolled_back"]),
  executionId: z.string(),
  result: z.unknown().optional().describe(
    "The value returned (completed), in Cordon's tagged JSON for bigint, Date, Map, bytes…",
  ),
  pending: z.array(PENDING_ACTION).optional().describe("Calls waiting for a decision (paused)"),
  error: ERROR_INFO.optional().describe("What went wrong (error, rejected)"),
  logs: z.array(LOG_ENTRY),
  calls: z.array(CALL_RECORD),
  diagnostics: z.array(DIAGNOSTIC),
  sessionId: z.string().optional().describe("The session this run used (pass it back to reuse it)"),
  meta: RUN_META.optional().describe(
    "runId, traceId, declarationHash, times; sessionId, sessionStatus, and recoveryRef when created",
  ),
  note: z.string().optional().describe(
    "What happened to a question asked in the client (declined, decided elsewhere, …)",
  ),
});

const EXECUTION_ID = z.string().min(1).max(200).describe(
  "The executionId an `execute` answer gave",
);

/** What the `result` tool takes. */
export const RESULT_INPUT = z.object({ executionId: EXECUTION_ID });

/** The longest a `wait` call waits (ms): clients often time a request out after a minute or two. */
export const MAX_WAIT_MS = 120_000;
/** How long a `wait` call waits when it does not say (ms). */
export const DEFAULT_WAIT_MS = 30_000;

/** What the `wait` tool takes. */
export const WAIT_INPUT = z.object({
  executionId: EXECUTION_ID,
  timeoutMs: z.number().int().min(0).max(MAX_WAIT_MS).optional().describe(
    `How long to wait at most (ms, default ${DEFAULT_WAIT_MS}, at most ${MAX_WAIT_MS})`,
  ),
});
