/**
 * The service's activity log: one line per HTTP request and one per run state change, handed to
 * a `log` function (`deno task serve` prints them on stdout; a library user's service logs
 * nothing unless given one). A line never holds a body, a key, a header or a query value: only
 * the time, the request id, the caller's namespace, the method, the path, the status and the
 * milliseconds, or the execution id, its namespace, its new state and the milliseconds.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ExecutionEvent, Runtime } from "../../engine/mod.ts";

/** Receives one finished line, without a newline. */
export type LogLine = (line: string) => void;

/**
 * Executions whose last state this process remembers, to say how long the last one lasted and
 * in which namespace; the oldest are forgotten past this (a paused run that expires sends no end).
 */
const MAX_TRACKED_RUNS = 10_000;
/** Paths longer than this are cut: a line stays one readable line. */
const MAX_PATH_CHARS = 300;

/** A path as it may appear in a line: no control characters or spaces, bounded. */
function shownPath(path: string): string {
  // deno-lint-ignore no-control-regex -- control characters are what is removed
  const clean = path.replace(/[\u0000-\u0020\u007f]/g, "?");
  return clean.length > MAX_PATH_CHARS ? `${clean.slice(0, MAX_PATH_CHARS)}…` : clean;
}

function ms(from: number): string {
  return `${Math.round(performance.now() - from)}ms`;
}

/**
 * Hono middleware writing `<time> request <id> ns=<namespace> <METHOD> <path> <status> <ms>`
 * once the answer's head is ready (for an event stream: when it starts). The namespace is the
 * caller's once it is known (`-` before authentication or on public routes).
 */
export function requestLog<E extends { Variables: { requestId: string } }>(
  log: LogLine,
  namespaceOf: (c: Context<E>) => string | undefined,
): MiddlewareHandler<E> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const id = (c.get("requestId") as string | undefined) ?? "-";
      const ns = namespaceOf(c) ?? "-";
      const line = `${new Date().toISOString()} request ${id} ns=${ns} ${c.req.method} ` +
        `${shownPath(c.req.path)} ${c.res.status} ${ms(started)}`;
      try {
        log(line);
      } catch {
        // A failing log sink cannot fail the request.
      }
    }
  };
}

/** The state an event moves an execution to, or undefined for events that change none. */
function stateOf(e: ExecutionEvent): string | undefined {
  switch (e.type) {
    case "started":
    case "paused":
    case "resumed":
      return e.type;
    case "done":
      return e.status;
    default:
      return undefined;
  }
}

/**
 * Writes `<time> run <executionId> ns=<namespace> <state> <ms>` for every run state change the
 * runtime reports in this process: started, paused, resumed, then completed, error, rejected or
 * rolled_back. `ms` is how long the run was in its previous state (`-` when this process did not
 * see it). Returns the function that stops it and waits for its last line.
 */
export function runLog(runtime: Runtime, log: LogLine): () => Promise<void> {
  const tracked = new Map<string, { namespace: string; since: number }>();
  let written: Promise<void> = Promise.resolve();
  const write = async (e: ExecutionEvent, state: string, at: number, time: Date) => {
    const known = tracked.get(e.executionId);
    let namespace = "namespace" in e ? e.namespace : known?.namespace;
    // A run this process has not seen start (resumed elsewhere, rolled back later): ask the store.
    namespace ??= (await runtime.execution(e.executionId).catch(() => undefined))?.namespace;
    tracked.delete(e.executionId);
    if (e.type !== "done") {
      tracked.set(e.executionId, { namespace: namespace ?? "-", since: at });
      if (tracked.size > MAX_TRACKED_RUNS) tracked.delete(tracked.keys().next().value!);
    }
    const took = known ? `${Math.round(at - known.since)}ms` : "-";
    log(`${time.toISOString()} run ${e.executionId} ns=${namespace ?? "-"} ${state} ${took}`);
  };
  const off = runtime.subscribe((e) => {
    const state = stateOf(e);
    if (state === undefined) return;
    const at = performance.now();
    const time = new Date();
    // One after the other, so lines keep the order of the events even when one waits for a read.
    written = written.then(() => write(e, state, at, time)).catch(() => {});
  });
  return async () => {
    off();
    await written;
  };
}
