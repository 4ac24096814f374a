/**
 * Workspace spans through OpenTelemetry's API, named and keyed as the
 * executor document names them. They are no-ops unless the host registers a
 * tracer provider; with an incoming W3C `traceparent` they are children of
 * the caller's span. A span's failure is recorded on it, never added to.
 *
 * @module
 */
import {
  type Attributes,
  type Context,
  context as otelContext,
  type Span,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { VERSION } from "../../version.ts";

/** Span: a workspace created (or reopened) and staged. */
export const SPAN_WORKSPACE_CREATE = "workspace.create";
/** Span: a workspace removed. */
export const SPAN_WORKSPACE_CLEANUP = "workspace.cleanup";
/** Span: files written into a workspace. */
export const SPAN_WORKSPACE_STAGE_FILES = "workspace.stage.files";
/** Span: a directory copied into a workspace. */
export const SPAN_WORKSPACE_STAGE_DIR = "workspace.stage.dir";
/** Span: a program run in a workspace. */
export const SPAN_WORKSPACE_RUN = "workspace.run";
/** Span: outputs collected from a workspace. */
export const SPAN_WORKSPACE_COLLECT = "workspace.collect";
/** Span: inline content (a code block, an output's text) handled in a workspace. */
export const SPAN_WORKSPACE_INLINE = "workspace.inline";

/** Attribute: the execution's id. */
export const ATTR_EXEC_ID = "exec_id";
/** Attribute: a workspace path. */
export const ATTR_PATH = "path";
/** Attribute: how many (files, inputs, outputs). */
export const ATTR_COUNT = "count";
/** Attribute: glob patterns. */
export const ATTR_PATTERNS = "patterns";
/** Attribute: a program's command. */
export const ATTR_CMD = "cmd";
/** Attribute: a program's working directory (workspace-relative). */
export const ATTR_CWD = "cwd";
/** Attribute: a program's exit code. */
export const ATTR_EXIT_CODE = "exit_code";
/** Attribute: whether a program timed out. */
export const ATTR_TIMED_OUT = "timed_out";
/** Attribute: a host path staged (library callers only). */
export const ATTR_HOST_PATH = "host_path";
/** Attribute: a workspace-relative destination. */
export const ATTR_TO = "to";
/** Attribute: whether a mount was used (never here: everything is copied). */
export const ATTR_MOUNT_USED = "mount_used";

/** The tracer's instrumentation name. */
export const TRACER_NAME = "cordon.workspaces";

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The context a workspace's spans start in: the remote parent a valid `traceparent` names,
 * else the active context. A malformed traceparent is ignored (tracing never refuses work).
 */
export function traceContext(traceparent: unknown): Context {
  const active = otelContext.active();
  if (typeof traceparent !== "string" || traceparent.length > 512) return active;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m) return active;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === "ff" || (version === "00" && rest !== undefined)) return active;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return active;
  return trace.setSpanContext(active, {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & 1,
    isRemote: true,
  });
}

/**
 * Runs `fn` in a span named `name` under `parent`; `fn` gets the span and the context its own
 * children start in. A throw is recorded on the span (status error) and rethrown.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  parent: Context | undefined,
  fn: (span: Span, ctx: Context) => Promise<T>,
): Promise<T> {
  const tracer = trace.getTracer(TRACER_NAME, VERSION);
  const span = tracer.startSpan(name, { attributes }, parent ?? otelContext.active());
  const ctx = trace.setSpan(parent ?? otelContext.active(), span);
  try {
    return await fn(span, ctx);
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
    throw err;
  } finally {
    span.end();
  }
}
