/**
 * The activity log of a service started from code: silent without a `log` function; with one,
 * a line per request and per run state change, including a state change of a run this log did
 * not see start (its namespace read from the store), and a sink that throws never fails a request.
 */
import assert from "node:assert/strict";
import { hashToken } from "../../../src/service/access/keys.ts";
import { loadConfigFile, type ServiceConfig } from "../../../src/service/server/config.ts";
import { startService } from "../../../src/service/server/server.ts";
import { FIXTURE_CONFIG } from "../_service.ts";

const KEY = "cordon_activity_log_key_0123456789";

async function started(extra: Partial<ServiceConfig>, log?: (line: string) => void) {
  const dataDir = await Deno.makeTempDir({ prefix: "cordon-activity-" });
  const config = {
    ...(await loadConfigFile(FIXTURE_CONFIG)),
    host: "127.0.0.1",
    port: 0,
    dataDir,
    ...extra,
  };
  const service = await startService(config, { shutdownGraceMs: 2_000, ...(log ? { log } : {}) });
  return {
    service,
    async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: { "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, id: res.headers.get("x-request-id"), json: await res.json() };
    },
    async [Symbol.asyncDispose]() {
      await service.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

Deno.test("startService({ log }): request and run lines; namespaces from keys and from the store", async () => {
  const lines: string[] = [];
  const keys = [{ name: "k", sha256: await hashToken(KEY), scopes: ["admin" as const] }];
  {
    await using t = await started({ keys, auth: "keys" }, (l) => lines.push(l));
    const auth = { authorization: `Bearer ${KEY}`, "x-request-id": "req-from-the-caller" };
    const refused = await t.call("POST", "/v1/executions", { code: "return 1" });
    assert.equal(refused.status, 401);
    const run = await t.call(
      "POST",
      "/v1/executions",
      { code: 'return await mail.send({ to: "ada" })', namespace: "team-b" },
      auth,
    );
    assert.equal(run.json.status, "paused");
    const id = run.json.executionId;
    const done = await t.call("POST", `/v1/executions/${id}/approve`, {}, auth);
    assert.equal(done.json.status, "completed");
    // The end is known: the log forgot the run. A rollback's state comes with the store's namespace.
    const rolled = await t.call("POST", `/v1/executions/${id}/rollback`, {}, auth);
    assert.equal(rolled.status, 200, JSON.stringify(rolled.json));
    const health = await fetch(`${t.service.url}/healthz`);
    await health.body?.cancel();
    await t.service.close();

    const at = (re: RegExp) => lines.filter((l) => re.test(l));
    assert.equal(
      at(/ request \S+ ns=- POST \/v1\/executions 401 \d+ms$/).length,
      1,
      lines.join("\n"),
    );
    // The key's namespace (an admin key acting for team-b is still the key's own caller).
    assert.equal(
      at(/ request req-from-the-caller ns=default POST \/v1\/executions 200 \d+ms$/).length,
      1,
      lines.join("\n"),
    );
    assert.equal(at(/ request \S+ ns=- GET \/healthz 200 \d+ms$/).length, 1);
    assert.deepEqual(
      at(new RegExp(` run ${id} `)).map((l) => l.split(" ").slice(3, 5).join(" ")),
      [
        "ns=team-b started",
        "ns=team-b paused",
        "ns=team-b resumed",
        "ns=team-b completed",
        "ns=team-b rolled_back",
      ],
    );
    assert.match(at(new RegExp(` run ${id} .* rolled_back`))[0], / rolled_back -$/);
    for (const l of lines) assert.doesNotMatch(l, new RegExp(KEY), "no key in a line");
  }
});

Deno.test("startService() logs nothing without log; a throwing sink fails no request", async () => {
  const printed: unknown[] = [];
  const { log, info } = console;
  console.log = console.info = (...args: unknown[]) => printed.push(args);
  try {
    await using quiet = await started({});
    assert.equal((await quiet.call("POST", "/v1/executions", { code: "return 1" })).json.result, 1);
  } finally {
    console.log = log;
    console.info = info;
  }
  assert.deepEqual(printed, [], "a library user's service prints nothing");
  let calls = 0;
  await using t = await started({}, () => {
    calls++;
    throw new Error("the sink is broken");
  });
  const r = await t.call("POST", "/v1/executions", { code: "return 2" });
  assert.equal(r.status, 200);
  assert.equal(r.json.result, 2);
  assert.ok(calls >= 3, `lines were offered (${calls})`);
});

Deno.test('startService(): "log": { "runs": false } keeps request lines only', async () => {
  const lines: string[] = [];
  await using t = await started({ log: { runs: false } }, (l) => lines.push(l));
  await t.call("POST", "/v1/executions", { code: "return 3" });
  await t.service.close();
  assert.ok(lines.some((l) => / request \S+ ns=default POST \/v1\/executions 200 /.test(l)));
  assert.ok(!lines.some((l) => / run /.test(l)), lines.join("\n"));
});
