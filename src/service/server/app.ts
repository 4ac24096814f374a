/**
 * The Hono application: request ids, body limits, authentication, the
 * route table, the MCP front door at `/mcp`, and the OpenAPI document.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import { CordonError } from "../../errors.ts";
import type { ServiceDeps } from "../routes/deps.ts";
import { isTopLevelNavigation, refuseCrossSite } from "../http/cross_site.ts";
import { CONSOLE_PAGE, CONSOLE_PREFIX, ConsoleAssets } from "../console/mod.ts";
import { errorResponse, fail, thrownResponse } from "../http/http.ts";
import { limitBody } from "../http/body_limit.ts";
import { type Principal, SCOPES } from "../access/keys.ts";
import { mcpHttpHandler } from "../mcp/mod.ts";
import { allowed, isJsonType, openApiDocument, type Route, runRoute } from "../routes/route.ts";
import { artifactRoutes } from "../routes/artifacts.ts";
import { catalogueRoutes } from "../routes/catalogue.ts";
import { executionRoutes } from "../routes/executions.ts";
import { sessionRoutes } from "../routes/sessions.ts";
import { programRoutes } from "../routes/programs.ts";
import { type LogLine, requestLog } from "./activity_log.ts";
import { activityRoutes } from "../routes/activity.ts";
import { keyRoutes } from "../routes/keys.ts";

/** How the app decides who calls. */
export interface AppOptions {
  /** `auto`: keys are needed once any exist; `keys`: always. */
  auth: "auto" | "keys";
  /** Larger request bodies get 413. */
  maxBodyBytes: number;
  /** Receives one line per request (no bodies, keys or query values); none when absent. */
  log?: LogLine;
}

/** Who acts when no keys exist and the caller is local: every scope, the default namespace. */
const LOCAL: Principal = { name: "local", scopes: new Set(SCOPES), namespace: "default" };
/** Keys made by the CLI show up within this long (ms) without a restart. */
const KEYS_CACHE_MS = 2_000;
const REQUEST_ID = /^[\w.:-]{1,128}$/;
const LOOPBACK_HOSTS = /^(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])(?::\d+)?$/i;

type Env = { Variables: { principal: Principal; requestId: string } };

/** Routes outside the table take no query parameters either. */
function noQuery(c: Context): void {
  const names = Object.keys(c.req.query());
  if (names.length > 0) {
    fail("invalid_request", `Unknown query parameter(s): ${names.slice(0, 10).join(", ")}`);
  }
}

/** Every route of the service, in order. */
export function serviceRoutes(deps: ServiceDeps): Route[] {
  return [
    ...executionRoutes(deps),
    ...sessionRoutes(deps),
    ...programRoutes(deps),
    ...catalogueRoutes(deps),
    ...artifactRoutes(deps),
    ...activityRoutes(deps),
    ...keyRoutes(deps),
  ];
}

/** Builds the application over the service's parts. */
export function createApp(deps: ServiceDeps, options: AppOptions): Hono<Env> {
  const app = new Hono<Env>();
  const routes = serviceRoutes(deps);
  let keysNeeded = { value: options.auth === "keys", at: 0 };

  async function needKeys(): Promise<boolean> {
    if (options.auth === "keys") return true;
    if (Date.now() - keysNeeded.at > KEYS_CACHE_MS) {
      keysNeeded = { value: await deps.keys.any(), at: Date.now() };
    }
    return keysNeeded.value;
  }

  async function principalOf(c: Context): Promise<Principal> {
    const header = c.req.header("authorization");
    const token = header?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? c.req.header("x-api-key");
    if (token) {
      const p = await deps.keys.verify(token);
      if (!p) throw new CordonError("unauthorized", "This API key is unknown or revoked");
      return p;
    }
    if (await needKeys()) {
      throw new CordonError(
        "unauthorized",
        "This server needs an API key: send Authorization: Bearer <key>",
      );
    }
    // Without keys only local callers are served; a loopback Host also stops DNS rebinding.
    if (!LOOPBACK_HOSTS.test(c.req.header("host") ?? "")) {
      throw new CordonError(
        "forbidden",
        "Without API keys this server answers only requests addressed to a loopback host",
      );
    }
    return LOCAL;
  }

  // Every answer carries a request id: the caller's if it is sane, else a new one.
  app.use(async (c, next) => {
    const given = c.req.header("x-request-id");
    const id = given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    c.set("requestId", id);
    await next();
    try {
      c.res.headers.set("x-request-id", id);
    } catch {
      // Immutable headers (a proxied response): copy it.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("x-request-id", id);
    }
  });
  if (options.log) app.use(requestLog<Env>(options.log, (c) => c.get("principal")?.namespace));
  app.onError((err, c) => {
    if (!(err instanceof CordonError)) {
      console.error(`[cordon] ${c.get("requestId")} ${c.req.method} ${c.req.path}:`, err);
    }
    return thrownResponse(err);
  });
  // Before anything else answers: a web page's request is refused on every path (a link to the
  // console page from elsewhere opens it; the page then calls only its own origin).
  app.use(async (c, next) => {
    if (!isTopLevelNavigation(c, CONSOLE_PAGE)) refuseCrossSite(c);
    await next();
  });
  app.notFound((c) =>
    errorResponse({ code: "not_found", message: `There is no route ${c.req.method} ${c.req.path}` })
  );
  app.use(
    "*",
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, allow) => {
        const res = errorResponse({
          code: "method_not_allowed",
          message: `${c.req.method} is not allowed here; use ${allow.join(", ")}`,
        });
        res.headers.set("allow", allow.join(", "));
        return res;
      },
    }),
  );
  app.use(
    "*",
    limitBody(options.maxBodyBytes, () =>
      errorResponse({
        code: "payload_too_large",
        message: `The body is larger than ${options.maxBodyBytes} bytes`,
        details: { maxBytes: options.maxBodyBytes },
      })),
  );
  app.get("/openapi.json", (c) => {
    noQuery(c);
    return c.json(openApiDocument(routes, {
      title: "Cordon",
      version: deps.version,
      description:
        "Run model-written TypeScript, Python and bash in a locked-down Deno sandbox that calls your tools.",
    }, new URL(c.req.url).origin));
  });
  // The operator console: files only, no data and no key; it calls the API like any client.
  const consoleAssets = new ConsoleAssets();
  app.get(CONSOLE_PAGE, (c) => consoleAssets.serve(c.req.raw, "index.html"));
  app.get(
    `${CONSOLE_PREFIX}*`,
    (c) => consoleAssets.serve(c.req.raw, c.req.path.slice(CONSOLE_PREFIX.length)),
  );
  for (const r of routes) {
    app.on(r.method.toUpperCase(), r.path, async (c) => {
      const principal = r.access === "public" ? LOCAL : await principalOf(c);
      if (r.access !== "public") c.set("principal", principal);
      return await runRoute(r, c, principal, deps.idempotency);
    });
  }
  app.all("/mcp", async (c) => {
    const principal = await principalOf(c);
    c.set("principal", principal);
    if (!allowed(principal, "execute")) {
      throw new CordonError("forbidden", 'The MCP front door needs the "execute" scope');
    }
    noQuery(c);
    if (c.req.method === "POST" && !isJsonType(c.req.header("content-type"))) {
      fail("unsupported_media_type", "Send MCP messages as JSON (content-type: application/json)");
    }
    return await mcpHttpHandler(deps.runtime, {
      namespace: principal.namespace,
      admit: () => deps.gate.enter(principal.namespace),
      // Approving in the client is deciding: only keys that may decide are asked.
      approvals: allowed(principal, "approve"),
    })(c.req.raw);
  });
  return app;
}
