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
import type { ActivityFeed } from "../requests/activity.ts";

/** Receives one finished line, without a newline. */
export type LogLine = (line: string) => void;

/**
 * Executions whose last state this process remembers, to say how long the last one lasted; the
 * oldest are forgotten past this (a paused run that expires sends no end).
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

/**
 * Writes `<time> run <executionId> ns=<namespace> <state> <ms>` for every run state change the
 * activity feed numbers: started, paused, resumed, then completed, error, rejected or
 * rolled_back (deletions are not run states). `ms` is how long the run was in its previous state
 * (`-` when this process did not see it). Returns the function that stops it.
 */
export function runLog(feed: ActivityFeed, log: LogLine): () => void {
  const since = new Map<string, number>();
  return feed.onChange((e) => {
    if (e.change === "deleted") return;
    const before = since.get(e.executionId);
    since.delete(e.executionId);
    if (e.status === "running" || e.status === "paused") {
      since.set(e.executionId, e.at);
      if (since.size > MAX_TRACKED_RUNS) since.delete(since.keys().next().value!);
    }
    const took = before === undefined ? "-" : `${e.at - before}ms`;
    log(
      `${new Date(e.at).toISOString()} run ${e.executionId} ns=${e.namespace} ${e.change} ${took}`,
    );
  });
}
