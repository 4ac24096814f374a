import assert from "node:assert/strict";
import { openService } from "../_service.ts";

/** A value nested `levels` arrays deep. */
function nested(levels: number): unknown {
  let deep: unknown = 1;
  for (let i = 0; i < levels; i++) deep = [deep];
  return deep;
}

Deno.test("HTTP: run code, list, read with its call log and logs, delete", async () => {
  await using t = await openService();
  const run = await t.call("POST", "/v1/executions", {
    code: `console.log("adding"); return await math.add({ a: 2, b: 3 });`,
  });
  assert.equal(run.status, 200, JSON.stringify(run.json));
  assert.equal(run.json.status, "completed");
  assert.equal(run.json.result, 5);
  assert.match(run.headers.get("x-request-id") ?? "", /.{8,}/);
  const id = run.json.executionId;
  assert.equal(run.headers.get("location"), `/v1/executions/${id}`);

  const list = await t.call("GET", "/v1/executions?limit=10");
  assert.equal(list.status, 200);
  assert.deepEqual(list.json.items.map((e: { executionId: string }) => e.executionId), [id]);
  const one = await t.call("GET", `/v1/executions/${id}`);
  assert.equal(one.json.calls[0].tool, "add");
  assert.equal(one.json.calls[0].result, 5);
  assert.equal(one.json.namespace, "default");
  const logs = await t.call("GET", `/v1/logs/${one.json.logRef}`);
  assert.deepEqual(logs.json.items.map((l: { message: string }) => l.message), ["adding"]);

  const values = await t.call("POST", "/v1/executions", { code: "return 2n ** 70n" });
  assert.deepEqual(values.json.result, { $t: "bigint", v: (2n ** 70n).toString() });

  assert.deepEqual((await t.call("DELETE", `/v1/executions/${id}`)).json, { deleted: true });
  const gone = await t.call("GET", `/v1/executions/${id}`);
  assert.equal(gone.status, 404);
  assert.equal(gone.json.error.code, "execution_not_found");
});

Deno.test("HTTP: every bad request gets a typed error with a fitting status", async () => {
  await using t = await openService({ maxBodyBytes: 64 * 1024 });
  const cases: [string, string, unknown, number, string, Record<string, string>?][] = [
    ["POST", "/v1/executions", "{not json", 400, "invalid_request"],
    ["POST", "/v1/executions", { code: 42 }, 400, "invalid_request"],
    ["POST", "/v1/executions", { code: "return 1", extra: true }, 400, "invalid_request"],
    ["POST", "/v1/executions", { code: "return 1", timeoutMs: -5 }, 400, "invalid_request"],
    ["POST", "/v1/executions", { code: "return 1", limits: { nope: 1 } }, 400, "invalid_request"],
    ["POST", "/v1/executions", { code: "return 1", timeoutMs: 10 ** 9 }, 400, "limit_exceeded"],
    ["POST", "/v1/executions", { code: "x".repeat(100_000) }, 413, "payload_too_large"],
    ["POST", "/v1/executions", { code: "return 1", input: nested(300) }, 400, "invalid_input"],
    [
      "POST",
      "/v1/executions",
      { code: "return 1", input: nested(300), session: true },
      400,
      "invalid_input",
    ],
    [
      "POST",
      "/v1/executions",
      { code: "return 1", typecheck: "strict", namespace: "BAD" },
      400,
      "invalid_request",
    ],
    ["GET", "/v1/executions?limit=0", undefined, 400, "invalid_request"],
    ["GET", "/v1/executions?status=bogus", undefined, 400, "invalid_request"],
    ["GET", "/v1/executions?cursor=garbage", undefined, 400, "invalid_request"],
    ["GET", "/v1/executions/exec_nope", undefined, 404, "execution_not_found"],
    ["POST", "/v1/executions/exec_nope/approve", {}, 404, "execution_not_found"],
    ["POST", "/v1/executions/exec_nope/resolve", { seq: "one" }, 400, "invalid_request"],
    ["GET", "/v1/snippets/nope", undefined, 404, "snippet_not_found"],
    ["GET", "/v1/snippets/bad%20name", undefined, 400, "invalid_request"],
    ["GET", "/v1/describe/math.nope", undefined, 404, "tool_not_found"],
    ["GET", "/v1/search?limit=1000", undefined, 400, "invalid_request"],
    ["GET", "/v1/connectors/nope/check", undefined, 404, "connector_not_found"],
    ["GET", "/v1/logs/log_nope", undefined, 404, "not_found"],
    ["GET", "/v1/nothing", undefined, 404, "not_found"],
    ["PUT", "/v1/executions", undefined, 405, "method_not_allowed"],
  ];
  for (const [method, path, body, status, code] of cases) {
    const r = await t.call(method, path, body);
    assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.json).slice(0, 300)}`);
    assert.equal(r.json.error.code, code, `${method} ${path}`);
    assert.equal(typeof r.json.error.message, "string");
    assert.deepEqual(Object.keys(r.json), ["error"]);
  }
  const wrongType = await fetch(`${t.service.url}/v1/executions`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: JSON.stringify({ code: "return 1" }),
  });
  assert.equal(wrongType.status, 415);
  assert.equal((await wrongType.json()).error.code, "unsupported_media_type");
  const issues = await t.call("POST", "/v1/executions", { code: 1 });
  assert.equal(issues.json.error.details.issues[0].path, "body.code");
  // Nothing half-written: none of the refused requests left an execution behind.
  assert.equal((await t.call("GET", "/v1/executions")).json.items.length, 0);
});

Deno.test("HTTP: input nested too deep never takes a session slot", async () => {
  await using t = await openService();
  // 16 of these used to leave every session slot busy until a restart.
  for (let i = 0; i < 20; i++) {
    const r = await t.call("POST", "/v1/executions", {
      code: "return 1",
      input: nested(1_000),
      session: true,
    });
    assert.equal(r.status, 400, JSON.stringify(r.json).slice(0, 300));
    assert.equal(r.json.error.code, "invalid_input");
  }
  const opened = await t.call("POST", "/v1/executions", { code: "return 7", session: true });
  assert.equal(opened.status, 200, JSON.stringify(opened.json).slice(0, 300));
  assert.equal(opened.json.result, 7);
  assert.match(opened.json.meta.sessionId, /^ses_/);
});

Deno.test("HTTP: strict type errors are 422 with diagnostics; script errors are results", async () => {
  await using t = await openService();
  const typed = await t.call("POST", "/v1/executions", {
    code: `return await math.add({ a: "one", b: 2 })`,
    typecheck: "strict",
  });
  assert.equal(typed.status, 422, JSON.stringify(typed.json));
  assert.equal(typed.json.error.code, "type_error");
  assert.ok(typed.json.error.details.diagnostics.length > 0);
  const thrown = await t.call("POST", "/v1/executions", { code: `throw new Error("boom")` });
  assert.equal(thrown.status, 200);
  assert.equal(thrown.json.status, "error");
  assert.equal(thrown.json.error.code, "script_error");
});

Deno.test("HTTP: pause, pending, approve, reject, resolve and rollback", async () => {
  await using t = await openService();
  const paused = await t.call("POST", "/v1/executions", {
    code: `return await mail.send({ to: "ann" })`,
  });
  assert.equal(paused.json.status, "paused");
  const id = paused.json.executionId;
  const pending = await t.call("GET", "/v1/pending");
  assert.deepEqual(pending.json.items.map((p: { executionId: string }) => p.executionId), [id]);
  const done = await t.call("POST", `/v1/executions/${id}/approve`);
  assert.equal(done.json.status, "completed", JSON.stringify(done.json));
  assert.equal(done.json.result, "sent to ann");
  const again = await t.call("POST", `/v1/executions/${id}/approve`, {});
  assert.equal(again.status, 409);
  assert.equal(again.json.error.code, "invalid_state");

  const second = await t.call("POST", "/v1/executions", {
    code: `try { await mail.send({ to: "bob" }) } catch (e) { return e.code }`,
  });
  const rejected = await t.call("POST", `/v1/executions/${second.json.executionId}/reject`, {
    reason: "no",
  });
  assert.equal(rejected.json.result, "rejected");

  const asked = await t.call("POST", "/v1/executions", {
    code: `return "got " + await client.ask({ question: "name?" })`,
  });
  assert.equal(asked.json.status, "paused");
  const seq = asked.json.pending[0].seq;
  assert.equal(asked.json.pending[0].needs, "value");
  const resolved = await t.call("POST", `/v1/executions/${asked.json.executionId}/resolve`, {
    seq,
    value: "Ann",
  });
  assert.equal(resolved.json.result, "got Ann");

  const rolled = await t.call("POST", `/v1/executions/${id}/rollback`);
  assert.equal(rolled.status, 200, JSON.stringify(rolled.json));
  assert.equal((await t.call("GET", `/v1/executions/${id}`)).json.status, "rolled_back");
});

Deno.test("HTTP: snippets, search, describe, types and connectors", async () => {
  await using t = await openService();
  const run = await t.call("POST", "/v1/executions", {
    code: `return await math.add({ a: input.x, b: 1 })`,
    input: { x: 1 },
  });
  const saved = await t.call("POST", "/v1/snippets", {
    name: "inc",
    executionId: run.json.executionId,
    description: "Add one to x",
    inputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
  });
  assert.equal(saved.status, 201, JSON.stringify(saved.json));
  assert.equal(saved.json.version, 1);
  assert.equal((await t.call("GET", "/v1/snippets")).json.items[0].name, "inc");
  assert.match((await t.call("GET", "/v1/snippets/inc")).json.code, /math\.add/);
  const ran = await t.call("POST", "/v1/snippets/inc/run", { input: { x: 41 } });
  assert.equal(ran.json.result, 42);
  assert.equal(ran.json.meta.snippet.name, "inc");
  const badInput = await t.call("POST", "/v1/snippets/inc/run", { input: { x: "no" } });
  assert.equal(badInput.status, 400);
  assert.equal(badInput.json.error.code, "invalid_input");
  const hits = await t.call("GET", "/v1/search?q=add%20numbers");
  assert.equal(hits.json.items[0].path, "math.add");
  const described = await t.call("GET", "/v1/describe/math.add");
  assert.match(described.json.signature, /math\.add/);
  assert.equal((await t.call("GET", "/v1/describe/snippet:inc")).json.kind, "snippet");
  const types = await t.call("GET", "/v1/types");
  assert.match(types.json.declarations, /declare const math/);
  const ts = await fetch(`${t.service.url}/v1/types?format=ts`);
  assert.equal(await ts.text(), types.json.declarations);
  const connectors = await t.call("GET", "/v1/connectors");
  assert.deepEqual(
    connectors.json.items.map((c: { name: string }) => c.name).sort(),
    ["client", "mail", "math", "state"],
  );
  assert.equal((await t.call("GET", "/v1/connectors/math/check")).json.ready, true);
  assert.equal((await t.call("DELETE", "/v1/snippets/inc")).json.deleted, true);
  assert.equal((await t.call("DELETE", "/v1/snippets/inc")).status, 404);
  const health = await t.call("GET", "/healthz");
  assert.equal(health.json.ok, true);
});

Deno.test("HTTP: the OpenAPI document covers every route from the request schemas", async () => {
  await using t = await openService();
  const doc = (await t.call("GET", "/openapi.json")).json;
  assert.equal(doc.openapi, "3.0.3");
  for (
    const [path, method] of [
      ["/v1/executions", "post"],
      ["/v1/executions", "get"],
      ["/v1/executions/{id}", "get"],
      ["/v1/executions/{id}", "delete"],
      ["/v1/executions/{id}/events", "get"],
      ["/v1/executions/{id}/approve", "post"],
      ["/v1/executions/{id}/reject", "post"],
      ["/v1/executions/{id}/resolve", "post"],
      ["/v1/executions/{id}/rollback", "post"],
      ["/v1/pending", "get"],
      ["/v1/snippets", "get"],
      ["/v1/snippets", "post"],
      ["/v1/snippets/{name}", "get"],
      ["/v1/snippets/{name}", "delete"],
      ["/v1/snippets/{name}/run", "post"],
      ["/v1/search", "get"],
      ["/v1/describe/{path}", "get"],
      ["/v1/types", "get"],
      ["/v1/connectors", "get"],
      ["/v1/connectors/{id}/check", "get"],
      ["/v1/logs/{logRef}", "get"],
      ["/v1/artifacts", "get"],
      ["/v1/artifacts/{name}", "put"],
      ["/v1/artifacts/{name}", "get"],
      ["/v1/artifacts/{name}", "delete"],
      ["/v1/artifact-versions/{name}", "get"],
      ["/v1/sessions", "get"],
      ["/v1/sessions/{id}", "delete"],
      ["/v1/recovery/{recoveryRef}", "get"],
      ["/healthz", "get"],
    ]
  ) {
    assert.ok(doc.paths[path]?.[method], `${method} ${path} documented`);
  }
  const create = doc.paths["/v1/executions"].post;
  const schema = create.requestBody.content["application/json"].schema;
  assert.equal(schema.properties.code.type, "string");
  assert.deepEqual(schema.required, ["code"]);
  assert.equal(create.responses["400"].content["application/json"].schema.required[0], "error");
  const list = doc.paths["/v1/executions"].get.parameters.map((p: { name: string }) => p.name);
  assert.deepEqual(list.sort(), ["cursor", "limit", "namespace", "status"]);
  const upload = doc.paths["/v1/artifacts/{name}"].put;
  assert.deepEqual(upload.requestBody.content["*/*"].schema, { type: "string", format: "binary" });
  assert.deepEqual(
    upload.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`),
    [
      "path:name",
      "query:sourceExecutionId",
      "query:namespace",
    ],
  );
});

Deno.test("HTTP: past maxRunning runs wait in line; past maxQueued they get 429", async () => {
  await using t = await openService({ concurrency: { maxRunning: 1, maxQueued: 1 } });
  const slow = { code: "await new Promise((r) => setTimeout(r, 600)); return 'slow'" };
  const first = t.call("POST", "/v1/executions", slow);
  await new Promise((r) => setTimeout(r, 100));
  const second = t.call("POST", "/v1/executions", { code: "return 'queued'" });
  await new Promise((r) => setTimeout(r, 100));
  const load = (await t.call("GET", "/healthz")).json.load;
  assert.deepEqual(load, { running: 1, queued: 1, maxRunning: 1, maxQueued: 1 });
  const third = await t.call("POST", "/v1/executions", { code: "return 'refused'" });
  assert.equal(third.status, 429);
  assert.equal(third.json.error.code, "too_many_requests");
  assert.equal(third.headers.get("retry-after"), "1");
  assert.equal((await first).json.result, "slow");
  assert.equal((await second).json.result, "queued");
  assert.deepEqual((await t.call("GET", "/healthz")).json.load.running, 0);
  // Nothing was recorded for the refused request.
  assert.equal((await t.call("GET", "/v1/executions")).json.items.length, 2);
});
