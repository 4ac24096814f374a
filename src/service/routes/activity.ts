/**
 * `GET /v1/events`: every execution state change of a namespace as
 * server-sent events (the activity feed), for screens that list runs live.
 * The stream opens with a `ready` event naming the newest id, so a client
 * can read its list after it and miss nothing; a client that reconnects
 * with `Last-Event-ID` gets the changes it missed, or a `reset` event when
 * the feed no longer holds them all (read the list again then).
 *
 * @module
 */
import { z } from "zod";
import { streamSSE } from "hono/streaming";
import type { ActivityEvent } from "../requests/activity.ts";
import type { ServiceDeps } from "./deps.ts";
import { type Route, route } from "./route.ts";
import { wait } from "./sse.ts";
import { runSettings } from "./executions.ts";
import { namespaceFor } from "../access/scope.ts";
import { streamStop } from "./revocation.ts";

/** A comment line this often keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

function lastId(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The activity route. */
export function activityRoutes(deps: ServiceDeps): Route[] {
  return [
    route({
      method: "get",
      path: "/v1/events",
      summary: "Stream every execution's state changes",
      tag: "executions",
      access: "read",
      query: z.object({
        namespace: runSettings.namespace
          .describe("Admin keys: only this namespace (default: every namespace)"),
        lastEventId: z.string().max(20).optional()
          .describe("Resume after this event (the Last-Event-ID header does the same)"),
      }).strict(),
      responses: {
        200: "text/event-stream: ready, then started, paused, resumed, completed, error, " +
          "rejected, rolled_back and deleted events ({ executionId, namespace, status, at }), " +
          "each with an id; reset when changes were missed",
      },
      handle: ({ query, principal, c }) => {
        const namespace = namespaceFor(principal, query.namespace, true);
        const after = lastId(c.req.header("last-event-id") ?? query.lastEventId);
        const feed = deps.activity;
        const mine = (e: ActivityEvent) => namespace === undefined || e.namespace === namespace;
        return streamSSE(c, async (stream) => {
          using stop = streamStop(stream, deps.keys, deps.shutdown, principal);
          let sent = feed.lastId;
          if (after !== undefined && after !== sent) {
            // Changes it missed were let go, or the ids are a restarted service's: start over.
            if (after > sent || after + 1 < feed.firstId) {
              await stream.writeSSE({ event: "reset", data: JSON.stringify({ lastId: sent }) });
            } else sent = after;
          }
          await stream.writeSSE({
            event: "ready",
            data: JSON.stringify({ lastId: feed.lastId }),
          });
          while (!stop.signal.aborted && !feed.closed) {
            const changed = feed.changed();
            const fresh = feed.after(sent);
            if (fresh.length > 0 && fresh[0].id > sent + 1 && sent < feed.firstId - 1) {
              // This stream fell behind the feed's memory: say so rather than skip silently.
              await stream.writeSSE({ event: "reset", data: JSON.stringify({ lastId: sent }) });
            }
            for (const e of fresh) {
              sent = e.id;
              if (!mine(e)) continue;
              const { id, ...data } = e;
              await stream.writeSSE({
                id: String(id),
                event: e.change,
                data: JSON.stringify(data),
              });
            }
            const before = sent;
            await wait(KEEPALIVE_MS, stop.signal, changed);
            if (!stop.signal.aborted && feed.lastId === before) {
              await stream.write(": keepalive\n\n");
            }
          }
        });
      },
    }),
  ];
}
