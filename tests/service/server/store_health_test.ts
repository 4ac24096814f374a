/**
 * The service over a store that lost its database file: `/healthz` answers 503 with the
 * reason and a new run is refused `503 store_unavailable` instead of answered 200 and lost at
 * the next restart. A real service on 127.0.0.1 with a libSQL file in a temp directory.
 */
import assert from "node:assert/strict";
import { openService } from "../_service.ts";

Deno.test("a deleted database file: /healthz and POST /v1/executions answer 503 store_unavailable", async () => {
  await using t = await openService();
  const before = await t.call("POST", "/v1/executions", { code: "return 1 + 1" });
  assert.equal(before.status, 200, JSON.stringify(before.json));
  assert.equal((await t.call("GET", "/healthz")).status, 200);
  await Deno.remove(`${t.dir}/cordon.db`);
  const health = await t.call("GET", "/healthz");
  assert.equal(health.status, 503);
  assert.equal(health.json.ok, false);
  assert.match(health.json.reason, /database file was deleted/);
  assert.ok(!JSON.stringify(health.json).includes(t.dir), "the public route names no host path");
  const run = await t.call("POST", "/v1/executions", { code: "return 2" });
  assert.equal(run.status, 503, JSON.stringify(run.json));
  assert.equal(run.json.error.code, "store_unavailable");
  const list = await t.call("GET", "/v1/executions");
  assert.equal(list.status, 503, JSON.stringify(list.json));
});

Deno.test("a truncated database file: the next run is 503 and health stays failed", async () => {
  await using t = await openService();
  assert.equal((await t.call("POST", "/v1/executions", { code: "return 1" })).status, 200);
  await Deno.truncate(`${t.dir}/cordon.db`, 0);
  const run = await t.call("POST", "/v1/executions", { code: "return 2" });
  assert.equal(run.status, 503, JSON.stringify(run.json));
  assert.equal(run.json.error.code, "store_unavailable");
  for (let i = 0; i < 2; i++) {
    const health = await t.call("GET", "/healthz");
    assert.equal(health.status, 503);
    assert.match(health.json.reason, /truncated/);
  }
});
