/**
 * The executions part of the runtime's API ({@link ExecutionsApi}): listing, reading,
 * deleting, logs by reference, and live events.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import {
  EXECUTION_STATUSES,
  type ExecutionRow,
  type ExecutionStore,
} from "../../store/executions.ts";
import type { LogStore } from "../../store/logs.ts";
import * as control from "./control.ts";
import type { Engine } from "./engine.ts";
import { toCallRecord } from "./envelope.ts";
import { ownTraceId } from "./trace.ts";
import { checkNamespace } from "../common/namespace.ts";
import { checkRef, pageLimit, seqCursor } from "../common/paging.ts";
import type {
  ExecutionDetails,
  ExecutionList,
  ExecutionsApi,
  ExecutionSummary,
  LogPage,
} from "./records_types.ts";
import type { Diagnostic } from "./types.ts";

function summary(r: ExecutionRow): ExecutionSummary {
  const s: ExecutionSummary = {
    id: r.id,
    executionId: r.id,
    namespace: r.namespace,
    status: r.status,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    passes: r.passes,
  };
  if (r.endedAt !== undefined) s.endedAt = r.endedAt;
  if (r.error) s.error = { code: r.error.code, message: r.error.message };
  return s;
}

/**
 * One page of an execution's log lines, found by its `logRef`. With `namespace`, an execution
 * of another namespace reads as `not_found`, exactly like an unknown ref (what a script's
 * `codemode.readLogs()` gets).
 */
export async function readLogPage(
  executions: ExecutionStore,
  logs: LogStore,
  o: { logRef: string; cursor?: string; limit?: number },
  namespace?: string,
): Promise<LogPage> {
  const logRef = checkRef(o?.logRef, "readLogs() needs the logRef of an execution");
  const limit = pageLimit(o.limit, "A logs");
  const after = seqCursor(o.cursor, "logs");
  const row = await executions.byLogRef(logRef);
  if (!row || (namespace !== undefined && row.namespace !== namespace)) {
    throw new CordonError("not_found", "There are no logs under this logRef");
  }
  const lines = await logs.list(row.id, after, limit + 1);
  const page: LogPage = {
    executionId: row.id,
    namespace: row.namespace,
    startedAt: row.createdAt,
    items: lines.slice(0, limit).map((l) => ({
      seq: l.seq,
      level: l.level as LogPage["items"][number]["level"],
      message: l.message,
      atMs: l.atMs,
    })),
  };
  if (lines.length > limit) page.nextCursor = String(lines[limit - 1].seq);
  if (lines.length === 0 && await logs.expired(row.id)) page.expired = true;
  return page;
}

/** Builds the executions API over one engine. */
export function executionsApi(engine: Engine): ExecutionsApi {
  const store = engine.parts.executions;
  return {
    async executions(o = {}) {
      if (o.status !== undefined && !EXECUTION_STATUSES.includes(o.status)) {
        throw new CordonError(
          "invalid_request",
          `Unknown status "${o.status}"; use one of ${EXECUTION_STATUSES.join(", ")}`,
        );
      }
      const limit = pageLimit(o.limit, "An executions");
      const namespace = o.namespace === undefined ? undefined : checkNamespace(o.namespace);
      let page;
      try {
        page = await store.list({ status: o.status, namespace, limit, cursor: o.cursor });
      } catch (err) {
        // A bad cursor is the caller's; a typed failure (a lost store) keeps its code.
        if (err instanceof CordonError) throw err;
        throw new CordonError("invalid_request", (err as Error).message);
      }
      const items = page.items.map(summary);
      const list: ExecutionList = Object.assign([...items], { items });
      if (page.nextCursor) list.nextCursor = page.nextCursor;
      return list;
    },
    async execution(id) {
      const r = await store.get(String(id));
      if (!r) return undefined;
      const entries = await engine.parts.calls.list(r.id);
      const d: ExecutionDetails = {
        ...summary(r),
        code: r.code,
        input: r.input,
        connectors: r.connectors,
        declarationHash: r.declarationHash,
        logRef: r.logRef,
        traceId: r.traceId ?? ownTraceId(r.id),
        calls: entries.map((e) => ({
          ...toCallRecord(e),
          ...(e.result !== undefined ? { result: e.result } : {}),
        })),
        pending: (await control.pending(engine)).filter((p) => p.executionId === r.id),
      };
      const language = r.policy.language;
      if (language === "python" || language === "bash") d.language = language;
      if (r.result !== undefined) d.result = r.result;
      if (r.error) d.error = r.error;
      if (r.typecheck) {
        d.diagnostics = r.typecheck.diagnostics as unknown as Diagnostic[];
        d.meta = { typecheck: "done", typecheckMs: r.typecheck.ms };
      }
      return d;
    },
    async deleteExecution(id) {
      const r = await store.get(String(id));
      if (!r) return false;
      if (r.status === "running") {
        throw new CordonError("invalid_state", `Execution ${r.id} is running; wait for it to end`);
      }
      engine.live.get(r.id)?.pass.release();
      engine.live.delete(r.id);
      return await store.delete(r.id);
    },
    readLogs: (o) => readLogPage(engine.parts.executions, engine.parts.logs, o, o?.namespace),
    subscribe: (listener) => engine.parts.events.subscribe(listener),
  };
}
