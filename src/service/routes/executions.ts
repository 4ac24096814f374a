/**
 * Execution routes: run code, list and read executions, decide paused
 * calls, roll back, and stream events.
 *
 * @module
 */
import { z } from "zod";
import { LIMIT_NAMES } from "../../engine/execution/limits.ts";
import type { ExecuteRequest, ExecuteResult } from "../../engine/mod.ts";
import { MAX_CODE_CHARS } from "../../engine/source/source.ts";
import { workspaceBody } from "./workspace_schema.ts";
import { EXECUTION_STATUSES } from "../../store/executions.ts";
import type { ServiceDeps } from "./deps.ts";
import { errorResponse, jsonResponse } from "../http/http.ts";
import { type Route, route } from "./route.ts";
import { namespaceFor, visibleExecution } from "../access/scope.ts";
import { eventStream } from "./sse.ts";

const id = z.object({ id: z.string().min(1).max(200) });
const namespace = z.string().max(64).optional()
  .describe("Admin keys: act in this namespace (default: the key's own)");

/** The settings of a run, shared by executions and snippet runs. */
export const runSettings = {
  timeoutMs: z.number().int().positive().optional(),
  limits: z.partialRecord(z.enum(LIMIT_NAMES as [string, ...string[]]), z.number()).optional(),
  policy: z.object({ net: z.array(z.string().max(300)).max(100).optional() }).strict().optional(),
  namespace,
  wait: z.boolean().optional()
    .describe("false: answer 202 at once with the id, and follow the run by its events"),
};

const createBody = z.object({
  code: z.string().min(1).max(MAX_CODE_CHARS),
  language: z.string().max(32).optional()
    .describe("typescript (default; ts, javascript, js), python (py) or bash (sh)"),
  input: z.unknown().optional(),
  typecheck: z.enum(["off", "warn", "strict"]).optional(),
  session: z.boolean().optional()
    .describe("true: start a session (this node's); its id comes back in meta.sessionId"),
  sessionId: z.string().max(200).optional().describe("Run in this session (node-local)"),
  workspace: workspaceBody.optional()
    .describe("A directory the code may read and write; host directories cannot be staged here"),
  ...runSettings,
}).strict();

/** Runs `request`, waiting for its outcome or answering 202 once it is recorded. */
export async function startRun(
  deps: ServiceDeps,
  run: (hooks: { onStart(id: string): void }) => Promise<ExecuteResult>,
  wait: boolean | undefined,
  started: ((executionId: string) => void) | undefined,
  namespace: string,
): Promise<Response> {
  let startedId: string | undefined;
  const recorded = Promise.withResolvers<string>();
  const leave = await deps.gate.enter(namespace);
  const running = run({
    onStart: (executionId) => {
      startedId = executionId;
      started?.(executionId);
      recorded.resolve(executionId);
    },
  });
  running.finally(leave).catch(() => {});
  if (wait === false) {
    const first = await Promise.race([recorded.promise, running]);
    if (typeof first === "string") {
      const bg = running.catch(() => {}).finally(() => deps.background.delete(bg));
      deps.background.add(bg);
      return jsonResponse(
        {
          executionId: first,
          status: "running",
          links: {
            self: `/v1/executions/${first}`,
            events: `/v1/executions/${first}/events`,
          },
        },
        202,
        { location: `/v1/executions/${first}` },
      );
    }
  }
  const result = await running;
  // Refused before anything was stored (bad settings, type errors in strict mode, closing).
  if (startedId === undefined && result.status === "error") {
    const { error } = result;
    return errorResponse({
      code: error.code,
      message: error.message,
      details: {
        ...error.details,
        ...(result.diagnostics.length ? { diagnostics: result.diagnostics } : {}),
      },
    });
  }
  return jsonResponse(result, 200, { location: `/v1/executions/${result.executionId}` });
}

/** The execution routes. */
export function executionRoutes(deps: ServiceDeps): Route[] {
  const { runtime } = deps;
  return [
    route({
      method: "post",
      path: "/v1/executions",
      summary: "Run code (a W3C traceparent header sets meta.traceId)",
      tag: "executions",
      access: "execute",
      body: createBody,
      responses: {
        200: "The outcome: completed, paused (with pending calls), error or rejected",
        202: "Recorded and running (wait: false); follow it by its events",
        422: "Type errors in strict mode, or an Idempotency-Key used for another request",
      },
      handle: ({ body, principal, started, c }) => {
        const { wait, namespace: ns, ...rest } = body;
        const request: ExecuteRequest = { ...rest, namespace: namespaceFor(principal, ns) };
        // W3C trace context: the run joins the caller's trace (a malformed header is ignored).
        const traceparent = c.req.header("traceparent");
        if (traceparent !== undefined) request.traceparent = traceparent;
        return startRun(
          deps,
          (hooks) => runtime.execute(request, hooks),
          wait,
          started,
          request.namespace ?? principal.namespace,
        );
      },
    }),
    route({
      method: "get",
      path: "/v1/executions",
      summary: "List executions",
      tag: "executions",
      access: "read",
      query: z.object({
        status: z.enum(EXECUTION_STATUSES as [string, ...string[]]).optional(),
        limit: z.coerce.number().int().min(1).max(500).optional(),
        cursor: z.string().max(500).optional(),
        namespace,
      }).strict(),
      responses: { 200: "A page of executions, newest first, with nextCursor" },
      handle: ({ query, principal }) =>
        runtime.executions({
          status: query.status as ExecuteResult["status"] | undefined,
          limit: query.limit,
          cursor: query.cursor,
          namespace: namespaceFor(principal, query.namespace, true),
        }).then(({ items, nextCursor }) => (nextCursor ? { items, nextCursor } : { items })),
    }),
    route({
      method: "get",
      path: "/v1/executions/:id",
      summary: "Read an execution with its call log",
      tag: "executions",
      access: "read",
      params: id,
      responses: { 200: "The execution, its code, outcome, calls and pending decisions" },
      handle: ({ params, principal }) => visibleExecution(runtime, principal, params.id),
    }),
    route({
      method: "delete",
      path: "/v1/executions/:id",
      summary: "Delete an execution",
      tag: "executions",
      access: "execute",
      params: id,
      responses: { 200: "Deleted", 409: "It is running" },
      handle: async ({ params, principal }) => {
        const { namespace } = await visibleExecution(runtime, principal, params.id);
        const deleted = await runtime.deleteExecution(params.id);
        if (deleted) deps.activity.deleted(params.id, namespace);
        return { deleted };
      },
    }),
    route({
      method: "get",
      path: "/v1/executions/:id/events",
      summary: "Stream an execution's events",
      tag: "executions",
      access: "read",
      params: id,
      query: z.object({
        lastEventId: z.string().max(20).optional()
          .describe("Resume after this event (the Last-Event-ID header does the same)"),
      }).strict(),
      responses: {
        200: "text/event-stream: started, log, call, paused and done events, each with an id",
      },
      handle: async ({ params, query, principal, c }) => {
        const details = await visibleExecution(runtime, principal, params.id);
        const last = c.req.header("last-event-id") ?? query.lastEventId;
        return eventStream(deps, c, details, last, principal);
      },
    }),
    route({
      method: "post",
      path: "/v1/executions/:id/approve",
      summary: "Approve waiting calls",
      tag: "decisions",
      access: "approve",
      params: id,
      body: z.object({ seq: z.number().int().positive().optional() }).strict(),
      responses: { 200: "The next outcome", 409: "Nothing waits for approval" },
      handle: async ({ params, body, principal }) => {
        const { namespace } = await visibleExecution(runtime, principal, params.id);
        // A decision resumes the run: it takes a slot like a new run, in the run's namespace.
        return await deps.gate.run(() => runtime.approve(params.id, body), namespace);
      },
    }),
    route({
      method: "post",
      path: "/v1/executions/:id/reject",
      summary: "Reject waiting calls",
      tag: "decisions",
      access: "approve",
      params: id,
      body: z.object({
        seq: z.number().int().positive().optional(),
        reason: z.string().max(2_000).optional(),
      }).strict(),
      responses: { 200: "The next outcome", 409: "Nothing waits for a decision" },
      handle: async ({ params, body, principal }) => {
        const { namespace } = await visibleExecution(runtime, principal, params.id);
        return await deps.gate.run(() => runtime.reject(params.id, body), namespace);
      },
    }),
    route({
      method: "post",
      path: "/v1/executions/:id/resolve",
      summary: "Supply the value of a client-resolved call",
      tag: "decisions",
      access: "execute",
      params: id,
      body: z.object({
        seq: z.number().int().positive(),
        result: z.unknown().optional().describe("The call's result (resolveExecution's `result`)"),
        value: z.unknown().optional().describe("The same as result (Cordon's older name)"),
      }).strict(),
      responses: { 200: "The next outcome", 409: "That call does not wait for a value" },
      handle: async ({ params, body, principal }) => {
        const { namespace } = await visibleExecution(runtime, principal, params.id);
        const result = body.result !== undefined ? body.result : body.value;
        return await deps.gate.run(
          () => runtime.resolveExecution(params.id, body.seq, result),
          namespace,
        );
      },
    }),
    route({
      method: "post",
      path: "/v1/executions/:id/rollback",
      summary: "Revert an execution's applied calls",
      tag: "decisions",
      access: "approve",
      params: id,
      body: z.object({}).strict(),
      responses: { 200: "What was reverted", 409: "It is running or already rolled back" },
      handle: async ({ params, principal }) => {
        await visibleExecution(runtime, principal, params.id);
        return await runtime.rollback(params.id);
      },
    }),
    route({
      method: "get",
      path: "/v1/pending",
      summary: "List calls waiting for a decision or a client's value (pendingExecutions)",
      tag: "decisions",
      access: "approve",
      query: z.object({ namespace }).strict(),
      responses: { 200: "Every waiting call the key may see" },
      handle: async ({ principal, query }) => ({
        items: await runtime.pending({ namespace: namespaceFor(principal, query.namespace, true) }),
      }),
    }),
  ];
}
