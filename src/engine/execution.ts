/**
 * One pass of an execution on one child: bind the channel, enforce the
 * limits the host owns (deadline, call counts), serve tool calls through the
 * registry, and turn however it ended into a result envelope.
 *
 * @module
 */
import type { ConnectorRegistry } from "../connectors/registry.ts";
import { CordonError, type ErrorInfo, errorInfo } from "../errors.ts";
import { encodeValue } from "../rpc/codec.ts";
import type { ChildExit, SandboxChild } from "../sandbox/child.ts";
import type { MemoryGuardKind } from "../sandbox/cgroup.ts";
import {
  METHOD_LOG,
  METHOD_RUN,
  METHOD_TOOL_CALL,
  type RunParams,
  type RunResult,
  type ToolCallParams,
} from "../sandbox/protocol.ts";
import type { Limits } from "./limits.ts";
import { LogBuffer } from "./logs.ts";
import type { PreparedSource } from "./source.ts";
import type { CallRecord, ExecuteResult, ExecutionMeta } from "./types.ts";

const MiB = 1024 * 1024;
const encoder = new TextEncoder();

/** What one pass needs. */
export interface RunPassOptions {
  executionId: string;
  child: SandboxChild;
  pooled: boolean;
  source: PreparedSource;
  input: unknown;
  limits: Limits;
  maxTimeoutMs: number;
  registry: ConnectorRegistry;
  memoryGuard: MemoryGuardKind;
  /** `performance.now()` when `execute()` was called. */
  startedAt: number;
}

/** Bytes of a value in its wire encoding. */
export function encodedBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(encodeValue(value)) ?? "").length;
}

/** Names what killed a child that never answered. */
export function classifyExit(exit: ChildExit, heapMiB: number, memoryMiB: number): ErrorInfo {
  if (exit.killedFor) return exit.killedFor;
  if (exit.fault) return exit.fault;
  const tail = exit.stderr.slice(-2048);
  if (exit.oomKilled) {
    return errorInfo(
      "sandbox_memory",
      `The script used more than its ${memoryMiB} MiB memory limit and was killed`,
      {
        guard: "cgroup",
        memoryMiB,
      },
    );
  }
  if (/out of memory|heap limit|allocation failed/i.test(exit.stderr)) {
    return errorInfo(
      "sandbox_memory",
      `The script ran out of its ${heapMiB} MiB heap and was killed`,
      {
        guard: "heap",
        heapMiB,
      },
    );
  }
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  return errorInfo("sandbox_crashed", `The sandbox ended (${how}) before the script finished`, {
    exitCode: exit.code,
    signal: exit.signal,
    ...(tail ? { stderr: tail } : {}),
  });
}

function readToolCall(params: unknown): ToolCallParams {
  const p = params as Partial<ToolCallParams> | null;
  if (!p || typeof p.connector !== "string" || typeof p.tool !== "string") {
    throw new CordonError("invalid_request", "A tool call needs a connector name and a tool name");
  }
  return { connector: p.connector, tool: p.tool, args: p.args };
}

/** Runs the code once on `child` and returns how it ended. */
export async function runPass(o: RunPassOptions): Promise<ExecuteResult> {
  const { child, limits, registry } = o;
  const calls: CallRecord[] = [];
  const logs = new LogBuffer(limits.maxConsoleBytes, limits.maxInlineConsoleBytes, o.startedAt);
  const ended = new AbortController();
  let inFlight = 0;
  let failure: ErrorInfo | undefined;
  const stop = (info: ErrorInfo) => {
    failure ??= info;
    child.kill(info);
  };

  child.bind({
    onRequest: async (method, params) => {
      if (method !== METHOD_TOOL_CALL) {
        throw new CordonError("invalid_request", `The host does not handle ${method}`);
      }
      const { connector, tool, args } = readToolCall(params);
      if (calls.length >= limits.maxToolCalls) {
        const info = errorInfo(
          "too_many_calls",
          `The script made more than ${limits.maxToolCalls} tool calls`,
          {
            limit: limits.maxToolCalls,
          },
        );
        stop(info);
        throw new CordonError(info.code, info.message);
      }
      if (inFlight >= limits.maxCallsInFlight) {
        const info = errorInfo(
          "too_many_calls_in_flight",
          `The script had more than ${limits.maxCallsInFlight} tool calls waiting at once`,
          { limit: limits.maxCallsInFlight },
        );
        stop(info);
        throw new CordonError(info.code, info.message);
      }
      const record: CallRecord = {
        seq: calls.length + 1,
        connector,
        tool,
        args,
        status: "applied",
        durationMs: 0,
      };
      calls.push(record);
      inFlight++;
      const t0 = performance.now();
      try {
        const out = await registry.call(connector, tool, args, {
          executionId: o.executionId,
          signal: ended.signal,
        });
        record.durationMs = performance.now() - t0;
        if (!out.ok) {
          record.status = "error";
          record.error = out.error;
          throw new CordonError(out.error.code, out.error.message, out.error);
        }
        return out.value;
      } finally {
        inFlight--;
      }
    },
    onNotification: (method, params) => {
      if (method === METHOD_LOG) logs.add(params);
    },
    onFault: (info) => stop(info),
  });

  await child.setMemory(limits.memoryMiB * MiB);
  const deadline = setTimeout(
    () =>
      stop(errorInfo("sandbox_timeout", `The script did not finish within ${limits.timeoutMs} ms`, {
        timeoutMs: limits.timeoutMs,
      })),
    limits.timeoutMs,
  );

  const params: RunParams = {
    module: o.source.module,
    lineOffset: o.source.lineOffset,
    input: o.input,
    connectors: registry.guestConnectors(),
    maxResultBytes: limits.maxResultBytes,
  };
  let outcome: { ok: true; value: unknown } | { ok: false; error: ErrorInfo };
  try {
    const reply = (await child.peer.request(METHOD_RUN, params)) as RunResult;
    outcome = { ok: true, value: reply?.value };
  } catch (err) {
    if (!child.alive || failure) {
      const exit = await child.exited;
      outcome = {
        ok: false,
        error: failure ?? classifyExit(exit, limits.heapMiB, limits.memoryMiB),
      };
    } else {
      outcome = {
        ok: false,
        error: err instanceof CordonError ? err.toInfo() : errorInfo("protocol_error", String(err)),
      };
    }
  } finally {
    clearTimeout(deadline);
    ended.abort();
  }
  // A limit the host enforced wins over an answer that raced it.
  if (outcome.ok && failure) outcome = { ok: false, error: failure };
  if (outcome.ok) {
    const bytes = encodedBytes(outcome.value);
    if (bytes > limits.maxResultBytes) {
      outcome = {
        ok: false,
        error: errorInfo(
          "result_too_large",
          `The result is ${bytes} bytes, over the ${limits.maxResultBytes}-byte limit; return a smaller value`,
          { bytes, limit: limits.maxResultBytes },
        ),
      };
    }
  }
  child.kill();

  const meta: ExecutionMeta = {
    executionId: o.executionId,
    durationMs: performance.now() - o.startedAt,
    timeoutMs: limits.timeoutMs,
    maxTimeoutMs: o.maxTimeoutMs,
    calls: calls.length,
    memoryGuard: o.memoryGuard,
    heapMiB: limits.heapMiB,
    memoryMiB: limits.memoryMiB,
    pooled: o.pooled,
    form: o.source.form,
    logBytes: logs.receivedBytes,
    logsDropped: logs.dropped,
    logsTruncated: logs.truncated,
  };
  const common = { executionId: o.executionId, logs: logs.inline(), calls, diagnostics: [], meta };
  if (outcome.ok) return { status: "completed", result: outcome.value, ...common };
  return { status: "error", error: outcome.error, ...common };
}
