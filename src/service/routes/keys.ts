/**
 * API key routes for admins: list keys, make one (its token is in that
 * answer and never again), revoke one. The same store `deno task keys`
 * writes; keys the config file names are listed but revoked there.
 *
 * @module
 */
import { z } from "zod";
import { KEY_NAME_FORBIDDEN, SCOPES } from "../access/keys.ts";
import type { ServiceDeps } from "./deps.ts";
import { fail } from "../http/http.ts";
import { type Route, route } from "./route.ts";

/** The key routes. */
export function keyRoutes(deps: ServiceDeps): Route[] {
  const { keys } = deps;
  return [
    route({
      method: "get",
      path: "/v1/keys",
      summary: "List API keys",
      tag: "keys",
      access: "admin",
      responses: { 200: "Every key, revoked ones included, never with its token" },
      handle: async () => ({ items: await keys.list() }),
    }),
    route({
      method: "post",
      path: "/v1/keys",
      summary: "Create an API key",
      tag: "keys",
      access: "admin",
      body: z.object({
        name: z.string().trim().min(1).max(100).refine(
          (name) => !KEY_NAME_FORBIDDEN.test(name),
          "no control characters (newlines, tabs) or bidirectional marks",
        ),
        scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length),
        namespace: z.string().max(64).optional().describe("The key's namespace (default)"),
      }).strict(),
      responses: {
        201: "{ token, key }: the token is shown in this answer only; once a key exists, " +
          "every request needs one",
      },
      handle: async ({ body, c }) => c.json(await keys.create(body), 201),
    }),
    route({
      method: "delete",
      path: "/v1/keys/:id",
      summary: "Revoke an API key",
      tag: "keys",
      access: "admin",
      params: z.object({ id: z.string().min(1).max(200) }),
      responses: {
        200: "Revoked",
        404: "No such active key",
        409: "A key from the config file (remove it there)",
      },
      handle: async ({ params }) => {
        if (params.id.startsWith("config:")) {
          fail(
            "invalid_state",
            `Key ${params.id} comes from the config file: remove it there and restart`,
          );
        }
        if (!(await keys.revoke(params.id))) {
          fail("not_found", `There is no active key ${params.id}`);
        }
        return { revoked: true };
      },
    }),
  ];
}
