/**
 * How an execution uses a session: taking one before anything is stored
 * (so unknown, busy or incompatible sessions fail before code runs), and
 * after the run keeping or ending it and journaling what the code did.
 *
 * @module
 */
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import { CordonError, type ErrorInfo } from "../../errors.ts";
import type { CallEntry } from "../../store/calls.ts";
import type { ExecutionRow } from "../../store/executions.ts";
import { classify, type LiveSession, type SessionManager } from "./manager.ts";

/** A session an execution runs in, and whether this execution created it. */
export interface SessionUse {
  live: LiveSession;
  status: "created" | "reused";
  /** Names the code declared at top level (filled when the source is prepared). */
  declared: string[];
}

/** The session a request asks for, taken for this execution; `undefined` without one. */
export async function takeSession(
  sessions: SessionManager | undefined,
  request: { session?: unknown; sessionId?: unknown },
  namespace: string,
  declarationHash: string,
  policyKey: string,
): Promise<SessionUse | undefined> {
  const { session, sessionId } = request;
  if (session === undefined && sessionId === undefined) return undefined;
  if (session !== undefined && typeof session !== "boolean") {
    throw new CordonError("invalid_request", "session must be true or false");
  }
  if (sessionId !== undefined && (typeof sessionId !== "string" || sessionId.length > 200)) {
    throw new CordonError("invalid_request", "sessionId must be a session id string");
  }
  if (session === true && sessionId !== undefined) {
    throw new CordonError(
      "invalid_request",
      "Give session: true (a new one) or a sessionId, not both",
    );
  }
  if (!sessions) throw new CordonError("not_supported", "This runtime has no sessions");
  if (sessionId !== undefined) {
    const live = await sessions.acquire(sessionId, namespace, declarationHash, policyKey);
    return { live, status: "reused", declared: [] };
  }
  if (session !== true) return undefined;
  return {
    live: await sessions.open(namespace, declarationHash, policyKey),
    status: "created",
    declared: [],
  };
}

/** After a run in a session: keep or end the session, and journal the execution. */
export async function endSessionRun(
  sessions: SessionManager,
  registry: ConnectorRegistry,
  use: SessionUse,
  row: ExecutionRow,
  outcome: { ok: true } | { ok: false; error: ErrorInfo },
  calls: CallEntry[],
  keptChild: boolean,
  redact: (text: string) => string,
): Promise<void> {
  const code = outcome.ok ? undefined : outcome.error.code;
  await sessions.release(
    use.live,
    keptChild,
    code === "sandbox_timeout" ? "timeout" : code?.startsWith("sandbox_") ? "crashed" : "ended",
  );
  const toolCalls = calls.filter((c) => c.kind === "tool");
  await sessions.record(use.live, {
    executionId: row.id,
    code: redact(row.code),
    codeTruncated: false,
    status: outcome.ok ? "completed" : code === "rejected" ? "rejected" : "error",
    ...(outcome.ok ? {} : {
      error: { code: outcome.error.code, message: redact(outcome.error.message).slice(0, 2_000) },
    }),
    diagnostics: outcome.ok || !outcome.error.location ? [] : [{
      code: outcome.error.code,
      severity: "error",
      message: redact(outcome.error.message).slice(0, 500),
      line: outcome.error.location.line,
    }],
    declarationHash: row.declarationHash,
    classification: classify(
      outcome.ok ? { ok: true } : { ok: false, code },
      toolCalls.map((c) => ({
        kind: c.kind,
        readOnly: c.connector === "codemode" ||
          registry.tool(c.connector, c.tool)?.annotations.readOnly === true,
      })),
      ((row.policy.net as string[] | undefined)?.length ?? 0) > 0,
    ),
    declared: use.declared,
    toolCalls: toolCalls.length,
    createdAt: Date.now(),
  }).catch(() => {});
}
