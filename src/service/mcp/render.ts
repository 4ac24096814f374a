/**
 * How the MCP front answers: each tool result carries the data as
 * `structuredContent` and one text block a model reads (many clients show
 * the model only the text). Values go through Cordon's tagged encoding, so
 * a `bigint` or `Map` a script returns is JSON in both.
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { SearchPage } from "../../connectors/search.ts";
import type { Description } from "../../engine/catalogue/catalogue.ts";
import type {
  ExecuteResult,
  ExecutionMeta,
  LogEntry,
  PendingAction,
} from "../../engine/execution/types.ts";
import { CordonError, type ErrorInfo, toErrorInfo } from "../../errors.ts";
import { encodeValue } from "../../rpc/codec.ts";
import { storedLogLines, storedResultLines } from "./render_stored.ts";
import type { Outcome } from "./outcome.ts";
import { MAX_WAIT_MS } from "./schemas.ts";

/** Where a person decides paused calls; the service mounts its HTTP API here. */
export const EXECUTIONS_API_PATH = "/v1/executions";

/** `value` as JSON text, through the tagged encoding (`undefined` is not JSON). */
function toJsonText(value: unknown, indent?: number): string {
  return JSON.stringify(encodeValue(value), null, indent);
}

function errorLine(error: ErrorInfo): string {
  const at = error.location
    ? ` (line ${error.location.line}, column ${error.location.column})`
    : "";
  return `${error.code}: ${error.message}${at}`;
}

function logLines(logs: readonly LogEntry[]): string[] {
  return logs.length === 0 ? [] : ["", "Console:", ...logs.map((l) => `[${l.level}] ${l.message}`)];
}

function pendingLine(p: PendingAction): string {
  const wants = p.needs === "approval" ? "waits for approval" : "waits for a value";
  return `- call #${p.seq} ${p.connector}.${p.tool}(${toJsonText(p.args)}) ${wants}`;
}

/** How a model goes on with a run that is not over: the follow-up tools, then the HTTP API. */
function goOnLines(executionId: string, paused: boolean): string[] {
  const base = `${EXECUTIONS_API_PATH}/${executionId}`;
  const lines = [
    `To go on, call the \`wait\` tool with {"executionId":"${executionId}"}: it answers once the` +
    ` run ends (up to ${MAX_WAIT_MS / 1000} s a call; call it again if it is still under way), or` +
    ` \`result\` with the same id for where it is now.`,
  ];
  if (paused) {
    lines.push(
      `A person decides through Cordon's HTTP API: POST ${base}/approve or ${base}/reject` +
        ` (approval), POST ${base}/resolve (a value). The run then continues where it stopped.`,
    );
  }
  return lines;
}

/** The readable rendering of an outcome (the tool result's one text block). */
export function outcomeText(out: Outcome & { meta?: ExecutionMeta }, note?: string): string {
  const lines: string[] = [];
  if (note) lines.push(note);
  switch (out.status) {
    case "completed": {
      const stored = storedResultLines(out);
      if (stored.length > 0) lines.push(...stored);
      else lines.push(out.result === undefined ? "(no value returned)" : toJsonText(out.result, 2));
      break;
    }
    case "paused": {
      const pending = out.pending ?? [];
      lines.push(
        `Execution ${out.executionId} is paused: ${pending.length} call(s) wait for a decision.`,
        ...pending.map(pendingLine),
        ...goOnLines(out.executionId, true),
      );
      break;
    }
    case "running":
      lines.push(
        `Execution ${out.executionId} is still running.`,
        ...goOnLines(out.executionId, false),
      );
      break;
    case "rolled_back":
      lines.push(`Execution ${out.executionId} was rolled back.`);
      break;
    case "error":
    case "rejected":
      if (out.error) lines.push(`Execution ${out.status}: ${errorLine(out.error)}`);
      break;
  }
  lines.push(...logLines(out.logs), ...storedLogLines(out));
  if (out.diagnostics.length > 0) {
    lines.push("", "Diagnostics:");
    for (const d of out.diagnostics) {
      const at = d.line === undefined ? "" : ` (line ${d.line}, column ${d.column ?? 1})`;
      lines.push(`[${d.severity}] ${d.code}: ${d.message}${at}`);
    }
  }
  if (out.meta?.sessionId) lines.push("", `Session: ${out.meta.sessionId} (pass it as sessionId)`);
  if (out.meta?.recoveryRef) {
    lines.push(`Its history: readRecovery({ recoveryRef: "${out.meta.recoveryRef}" })`);
  }
  return lines.join("\n");
}

/** The run meta the Code Mode API documents (`CodeModeRunMeta`); the rest stays host-side. */
const RUN_META_FIELDS = [
  "runId",
  "traceId",
  "declarationHash",
  "durationMs",
  "timeoutMs",
  "maxTimeoutMs",
  "sessionId",
  "sessionStatus",
  "recoveryRef",
  // Cordon's references to what was kept out of the answer (the result, the rest of the logs).
  "resultRef",
  "logRef",
] as const;

/** The documented fields of an execution's meta. */
function runMeta(meta: ExecutionMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of RUN_META_FIELDS) if (meta[k] !== undefined) out[k] = meta[k];
  return out;
}

/**
 * The answer of `execute`, `result` and `wait`: the outcome with the documented run meta (when
 * it is a fresh result), and its text. `note` opens the text and is `structuredContent.note`.
 */
export function outcomeToolResult(
  out: Outcome | ExecuteResult,
  note?: string,
): CallToolResult {
  const meta = "meta" in out ? out.meta : undefined;
  const data: Record<string, unknown> = {
    status: out.status,
    executionId: out.executionId,
    logs: out.logs,
    calls: out.calls,
    diagnostics: out.diagnostics,
    ...(meta?.sessionId ? { sessionId: meta.sessionId } : {}),
    ...(meta ? { meta: runMeta(meta) } : {}),
    ...(note ? { note } : {}),
  };
  if (out.status === "completed") data.result = out.result;
  else if (out.status === "paused") data.pending = out.pending ?? [];
  else if ("error" in out && out.error) data.error = out.error;
  return {
    content: [{ type: "text", text: outcomeText(out, note) }],
    structuredContent: encodeValue(data) as Record<string, unknown>,
    isError: out.status === "error" || out.status === "rejected",
  };
}

/** The `execute` tool's answer: the result with its documented run meta, and its text. */
export function executeToolResult(out: ExecuteResult, note?: string): CallToolResult {
  return outcomeToolResult(out, note);
}

/** The `search` tool's answer. */
export function searchToolResult(page: SearchPage): CallToolResult {
  const lines = page.items.length === 0
    ? ["No tools or snippets match."]
    : page.items.map((hit) =>
      `- ${hit.path}: ${hit.description}${hit.signature ? `\n  ${hit.signature}` : ""}`
    );
  if (page.nextCursor) {
    lines.push(`(${page.total} matches in all; more with cursor "${page.nextCursor}")`);
  }
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: encodeValue(page) as Record<string, unknown>,
  };
}

/** The `describe` tool's answer. */
export function describeToolResult(d: Description): CallToolResult {
  const lines = [d.signature, "", d.description, "", `Input: ${d.input}`, `Output: ${d.output}`];
  if (d.observedShape) {
    lines.push(`Output seen in ${d.observedSamples ?? 0} result(s): ${d.observedShape}`);
  }
  if (d.stale) lines.push("This snippet no longer type-checks against the current tools.");
  if (d.examples.length > 0) lines.push("", "Example:", ...d.examples);
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: encodeValue(d) as Record<string, unknown>,
  };
}

/**
 * A {@link CordonError} as a tool error (`isError`), its code first in the
 * text and as `structuredContent.error`. Anything else is a bug and is
 * rethrown (the SDK turns it into an error result with the message).
 * `withData: false` leaves out `structuredContent`, for tools whose output
 * schema an error object would not match.
 */
export function errorToolResult(err: unknown, withData = true): CallToolResult {
  if (!(err instanceof CordonError)) throw err;
  const error = toErrorInfo(err);
  return {
    content: [{ type: "text", text: errorLine(error) }],
    ...(withData ? { structuredContent: { error } } : {}),
    isError: true,
  };
}
