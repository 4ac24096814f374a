/**
 * Session routes. Sessions are node-local: a session lives in the process
 * that created it, so behind a load balancer its executions must reach that
 * process (or start a new session and rebuild from the recovery history).
 *
 * @module
 */
import { z } from "zod";
import type { ServiceDeps } from "./deps.ts";
import { fail } from "../http/http.ts";
import { type Route, route } from "./route.ts";
import { runSettings } from "./executions.ts";
import { isAdmin, namespaceFor } from "../access/scope.ts";

/** The session routes. */
export function sessionRoutes(deps: ServiceDeps): Route[] {
  const { runtime } = deps;
  return [
    route({
      method: "get",
      path: "/v1/sessions",
      summary: "List this node's sessions",
      tag: "sessions",
      access: "read",
      query: z.object({ namespace: runSettings.namespace }).strict(),
      responses: { 200: "Live sessions of this process (sessions are node-local)" },
      handle: ({ query, principal }) => ({
        items: runtime.sessions({ namespace: namespaceFor(principal, query.namespace, true) }),
      }),
    }),
    route({
      method: "delete",
      path: "/v1/sessions/:id",
      summary: "Close a session",
      tag: "sessions",
      access: "execute",
      params: z.object({ id: z.string().min(1).max(200) }),
      responses: { 200: "Closed", 404: "Not held by this node", 409: "Running an execution" },
      handle: async ({ params, principal }) => {
        const ns = isAdmin(principal) ? undefined : principal.namespace;
        if (!(await runtime.closeSession(params.id, { namespace: ns }))) {
          fail("session_not_found", `This node holds no session ${params.id}`);
        }
        return { closed: true };
      },
    }),
    route({
      method: "get",
      path: "/v1/recovery/:recoveryRef",
      summary: "Read a session's recovery history",
      tag: "sessions",
      access: "read",
      params: z.object({ recoveryRef: z.string().min(1).max(200) }),
      query: z.object({
        cursor: z.string().max(20).optional(),
        limit: z.coerce.number().int().min(1).max(500).optional(),
      }).strict(),
      responses: { 200: "Journal entries, oldest first, with nextCursor", 404: "Unknown ref" },
      handle: async ({ params, query, principal }) => {
        const namespace = isAdmin(principal) ? undefined : principal.namespace;
        return await runtime.readRecovery({ recoveryRef: params.recoveryRef, ...query, namespace });
      },
    }),
  ];
}
