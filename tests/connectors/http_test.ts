import assert from "node:assert/strict";
import {
  DEFAULT_HTTP_MAX_RESPONSE_BYTES,
  httpConnector,
  type HttpConnectorOptions,
} from "../../src/connectors/builtin/http.ts";
import { ConnectorRegistry } from "../../src/connectors/registry.ts";
import type { Tool } from "../../src/connectors/types.ts";
import { CordonError, type ErrorInfo } from "../../src/errors.ts";

const SECRET = "Bearer s3cr3t-t0ken-for-tests-only";

interface Seen {
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** A real HTTP server on 127.0.0.1 that records and echoes what it receives. */
function startServer() {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      const record: Seen = {
        path: url.pathname,
        method: req.method,
        headers: Object.fromEntries(req.headers),
        body: await req.text(),
      };
      seen.push(record);
      const q = url.searchParams;
      switch (url.pathname) {
        case "/echo":
          return Response.json(record, {
            headers: {
              "x-echo-auth": req.headers.get("authorization") ?? "",
              "authorization": req.headers.get("authorization") ?? "",
            },
          });
        case "/echo-text":
          return new Response(`you sent: ${req.headers.get("authorization")}`);
        case "/echo-escaped": {
          const auth = req.headers.get("authorization") ?? "";
          const escaped = [...auth].map((c) =>
            `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
          )
            .join("");
          return new Response(`{"auth":"${escaped}"}`, {
            headers: { "content-type": "application/json" },
          });
        }
        case "/redirect":
          return new Response(null, {
            status: Number(q.get("status") ?? 302),
            headers: { location: q.get("to")! },
          });
        case "/big":
          return new Response("a".repeat(Number(q.get("n"))));
        case "/slow": {
          // Headers at once, the body only after `ms`: the client's deadline falls while it
          // reads. Cancelling the stream (the client went away) clears the timer.
          let timer: ReturnType<typeof setTimeout> | undefined;
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              timer = setTimeout(() => {
                controller.enqueue(new TextEncoder().encode("late"));
                controller.close();
              }, Number(q.get("ms")));
            },
            cancel() {
              clearTimeout(timer);
            },
          });
          return new Response(body);
        }
        default:
          return new Response("not found", { status: 404 });
      }
    },
  );
  const host = `127.0.0.1:${server.addr.port}`;
  return {
    seen,
    host,
    base: `http://${host}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function fetchTool(options: HttpConnectorOptions): Tool {
  return httpConnector(options).tools[0];
}

type Outcome = { ok: true; value: Record<string, unknown> } | { ok: false; error: ErrorInfo };

/** Validates, then runs `Tool.execute` directly, as the registry would, without its wrapping. */
async function call(tool: Tool, args: unknown, signal?: AbortSignal): Promise<Outcome> {
  const v = tool.validateInput!(args);
  if (!v.ok) return v;
  try {
    const value = await tool.execute!(v.value, {
      signal: signal ?? new AbortController().signal,
      executionId: "exec_http",
      namespace: "default",
      connector: "http",
      tool: "fetch",
    });
    return { ok: true, value: value as Record<string, unknown> };
  } catch (err) {
    if (err instanceof CordonError) return { ok: false, error: err.toInfo() };
    throw err;
  }
}

function ok(out: Outcome): Record<string, unknown> {
  if (!out.ok) assert.fail(`call failed: ${out.error.code}: ${out.error.message}`);
  return out.value;
}

function refused(out: Outcome, code = "policy_denied"): ErrorInfo {
  assert.ok(!out.ok, "the call was not refused");
  assert.equal(out.error.code, code, out.error.message);
  return out.error;
}

Deno.test("httpConnector() fetches from an allowed host and returns status, headers and JSON", async () => {
  await using srv = startServer();
  const tool = fetchTool({ allow: [srv.host], allowPrivateNetwork: true });
  const out = ok(
    await call(tool, {
      url: `${srv.base}/echo?x=1`,
      method: "POST",
      headers: { "x-trace": "abc" },
      json: { hello: "world" },
    }),
  );
  assert.equal(out.status, 200);
  assert.equal(out.url, `${srv.base}/echo?x=1`);
  assert.equal((out.headers as Record<string, string>)["content-type"], "application/json");
  const echoed = out.json as Seen;
  assert.equal(echoed.method, "POST");
  assert.equal(echoed.headers["x-trace"], "abc");
  assert.equal(echoed.headers["content-type"], "application/json");
  assert.deepEqual(JSON.parse(echoed.body), { hello: "world" });
  assert.equal(out.body, undefined);
  assert.equal(out.truncated, undefined);
});

Deno.test("httpConnector() refuses hosts off the allow list, other schemes and URLs with credentials", async () => {
  await using srv = startServer();
  const tool = fetchTool({ allow: [srv.host], allowPrivateNetwork: true });
  const port = srv.host.split(":")[1];
  const other = refused(await call(tool, { url: `http://localhost:${port}/echo` }));
  assert.match(other.message, /localhost:\d+ is not on the allow list/);
  refused(await call(tool, { url: `http://127.0.0.1:${Number(port) + 1}/echo` }));
  refused(await call(tool, { url: "ftp://127.0.0.1/file" }));
  refused(await call(tool, { url: "file:///etc/passwd" }));
  refused(await call(tool, { url: `http://user:pw@${srv.host}/echo` }));
  refused(await call(tool, { url: "/echo" }), "invalid_input");
  assert.equal(srv.seen.length, 0);
});

Deno.test("httpConnector() sends the host's secret but never returns it", async () => {
  await using srv = startServer();
  const tool = fetchTool({
    allow: [srv.host],
    allowPrivateNetwork: true,
    secrets: { [srv.host]: { authorization: SECRET } },
  });
  const args = { url: `${srv.base}/echo` };
  const before = JSON.stringify(args);
  const echo = ok(await call(tool, args));
  assert.equal(srv.seen[0].headers.authorization, SECRET);
  const text = ok(await call(tool, { url: `${srv.base}/echo-text` }));
  const escaped = ok(await call(tool, { url: `${srv.base}/echo-escaped` }));
  assert.equal(srv.seen.length, 3);
  for (const result of [echo, text, escaped]) {
    const json = JSON.stringify(result);
    assert.ok(!json.includes(SECRET), json);
    assert.ok(!json.includes("s3cr3t-t0ken"), json);
  }
  const headers = echo.headers as Record<string, string>;
  assert.equal(headers.authorization, undefined);
  assert.equal(headers["x-echo-auth"], "[redacted]");
  assert.equal(text.body, "you sent: [redacted]");
  assert.deepEqual(escaped.json, { auth: "[redacted]" });
  assert.equal(JSON.stringify(args), before);
});

Deno.test("httpConnector() keeps a secret cut by the size limit out of the body", async () => {
  await using srv = startServer();
  const tool = fetchTool({
    allow: [srv.host],
    allowPrivateNetwork: true,
    secrets: { [srv.host]: { authorization: SECRET } },
    maxResponseBytes: "you sent: ".length + 15,
  });
  const out = ok(await call(tool, { url: `${srv.base}/echo-text` }));
  assert.equal(out.truncated, true);
  assert.equal(out.body, "you sent: ");
});

Deno.test("httpConnector() lets no script header override a secret or set Host", async () => {
  await using srv = startServer();
  const tool = fetchTool({
    allow: [srv.host],
    allowPrivateNetwork: true,
    secrets: { [srv.host]: { authorization: SECRET } },
  });
  const auth = refused(
    await call(tool, { url: `${srv.base}/echo`, headers: { Authorization: "Bearer mine" } }),
  );
  assert.match(auth.message, /authorization header .* is supplied by the host/);
  refused(await call(tool, { url: `${srv.base}/echo`, headers: { Host: "evil.example" } }));
  refused(
    await call(tool, { url: `${srv.base}/echo`, headers: { "bad header": "x" } }),
    "invalid_input",
  );
  assert.equal(srv.seen.length, 0);
});

Deno.test("httpConnector() follows redirects on allowed hosts and refuses one to another host", async () => {
  await using srv = startServer();
  const tool = fetchTool({
    allow: [srv.host],
    allowPrivateNetwork: true,
    secrets: { [srv.host]: { authorization: SECRET } },
  });
  const followed = ok(await call(tool, { url: `${srv.base}/redirect?to=/echo` }));
  assert.equal(followed.url, `${srv.base}/echo`);
  assert.equal((followed.json as Seen).path, "/echo");
  const post = ok(
    await call(tool, {
      url: `${srv.base}/redirect?status=303&to=/echo`,
      method: "POST",
      body: "x",
    }),
  );
  assert.equal((post.json as Seen).method, "GET");
  assert.equal((post.json as Seen).body, "");

  const port = srv.host.split(":")[1];
  srv.seen.length = 0;
  const away = refused(
    await call(tool, { url: `${srv.base}/redirect?to=http://localhost:${port}/echo` }),
  );
  assert.match(away.message, /Refused to follow the redirect.*not on the allow list/);
  assert.deepEqual(srv.seen.map((s) => s.path), ["/redirect"]);

  const hops = fetchTool({ allow: [srv.host], allowPrivateNetwork: true, maxRedirects: 1 });
  const chain = encodeURIComponent("/redirect?to=/echo");
  refused(await call(hops, { url: `${srv.base}/redirect?to=${chain}` }), "limit_exceeded");
});

Deno.test("httpConnector() does not carry secrets to another allowed host on a redirect", async () => {
  await using a = startServer();
  await using b = startServer();
  const tool = fetchTool({
    allow: [a.host, b.host],
    allowPrivateNetwork: true,
    secrets: { [a.host]: { authorization: SECRET } },
  });
  const out = ok(await call(tool, { url: `${a.base}/redirect?to=${b.base}/echo` }));
  assert.equal(out.url, `${b.base}/echo`);
  assert.equal(a.seen[0].headers.authorization, SECRET);
  assert.equal(b.seen[0].headers.authorization, undefined);
});

Deno.test("httpConnector() refuses private and loopback addresses unless allowPrivateNetwork", async () => {
  await using srv = startServer();
  const port = srv.host.split(":")[1];
  const literal = fetchTool({ allow: [srv.host] });
  const denied = refused(await call(literal, { url: `${srv.base}/echo` }));
  assert.match(denied.message, /private or loopback/);
  refused(await call(fetchTool({ allow: ["[::1]"] }), { url: `http://[::1]:${port}/echo` }));
  refused(
    await call(fetchTool({ allow: ["[::ffff:127.0.0.1]"] }), {
      url: `http://[::ffff:127.0.0.1]:${port}/`,
    }),
  );
  // A name is resolved and every address checked, after the URL passed validation.
  const named = fetchTool({ allow: [`localhost:${port}`] });
  assert.ok(named.validateInput!({ url: `http://localhost:${port}/echo` }).ok);
  refused(await call(named, { url: `http://localhost:${port}/echo` }));
  const mixed = fetchTool({
    allow: ["api.test"],
    lookup: () => Promise.resolve(["93.184.215.14", "10.0.0.7"]),
  });
  refused(await call(mixed, { url: "https://api.test/" }));
  const metadata = fetchTool({
    allow: ["*.cloud.test"],
    lookup: () => Promise.resolve(["169.254.169.254"]),
  });
  refused(await call(metadata, { url: "http://meta.cloud.test/latest" }));
  assert.equal(srv.seen.length, 0);
});

Deno.test("httpConnector() through the registry: a name resolving to loopback is policy_denied", async () => {
  await using srv = startServer();
  const port = srv.host.split(":")[1];
  const reg = new ConnectorRegistry([httpConnector({ allow: [`localhost:${port}`] })]);
  const out = await reg.call("http", "fetch", { url: `http://localhost:${port}/echo` }, {
    executionId: "e",
  });
  assert.ok(!out.ok);
  assert.equal(out.error.code, "policy_denied");
  const literal = await reg.call("http", "fetch", { url: `http://127.0.0.1:${port}/` }, {
    executionId: "e",
  });
  assert.ok(!literal.ok);
  assert.equal(literal.error.code, "policy_denied");
  assert.equal(srv.seen.length, 0);
});

Deno.test("httpConnector() cuts a body at maxResponseBytes and says so", async () => {
  await using srv = startServer();
  const tool = fetchTool({ allow: [srv.host], allowPrivateNetwork: true, maxResponseBytes: 100 });
  const cut = ok(await call(tool, { url: `${srv.base}/big?n=100000` }));
  assert.equal(cut.body, "a".repeat(100));
  assert.equal(cut.truncated, true);
  const whole = ok(await call(tool, { url: `${srv.base}/big?n=100` }));
  assert.equal(whole.body, "a".repeat(100));
  assert.equal(whole.truncated, undefined);
  assert.equal(DEFAULT_HTTP_MAX_RESPONSE_BYTES, 262_144);
});

Deno.test("httpConnector() times out as tool_timeout, through the registry and directly", async () => {
  await using srv = startServer();
  const options = { allow: [srv.host], allowPrivateNetwork: true, timeoutMs: 100 };
  const reg = new ConnectorRegistry([httpConnector(options)]);
  const viaRegistry = await reg.call("http", "fetch", { url: `${srv.base}/slow?ms=5000` }, {
    executionId: "e",
  });
  assert.ok(!viaRegistry.ok);
  assert.equal(viaRegistry.error.code, "tool_timeout");
  const tool = fetchTool(options);
  const ownDeadline = await call(tool, { url: `${srv.base}/slow?ms=5000` });
  assert.match(refused(ownDeadline, "tool_timeout").message, /did not finish within 100 ms/);
  const callerDeadline = await call(
    tool,
    { url: `${srv.base}/slow?ms=5000` },
    AbortSignal.timeout(50),
  );
  refused(callerDeadline, "tool_timeout");
});

Deno.test("httpConnector() answers HEAD with status and headers and no body", async () => {
  await using srv = startServer();
  const tool = fetchTool({ allow: [srv.host], allowPrivateNetwork: true });
  const out = ok(await call(tool, { url: `${srv.base}/big?n=5000`, method: "HEAD" }));
  assert.equal(out.status, 200);
  assert.equal(out.body, "");
  assert.equal(out.truncated, undefined);
  assert.equal(srv.seen[0].method, "HEAD");
  refused(
    await call(tool, { url: `${srv.base}/echo`, method: "HEAD", body: "x" }),
    "invalid_input",
  );
});

Deno.test("httpConnector() refuses bad options", () => {
  assert.throws(() => httpConnector({ allow: [] }), CordonError);
  assert.throws(() => httpConnector({ allow: ["https://example.com/path"] }), CordonError);
  assert.throws(() => httpConnector({ allow: ["*.1.2.3.4"] }), CordonError);
  assert.throws(() => httpConnector({ allow: ["*.com"] }), CordonError);
  assert.throws(
    () => httpConnector({ allow: ["a.test"], secrets: { "a.test": { host: "b.test" } } }),
    CordonError,
  );
});
