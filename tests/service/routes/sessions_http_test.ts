import assert from "node:assert/strict";
import { openService } from "../_service.ts";

Deno.test("HTTP sessions: state across requests, listing, recovery, close, errors", async () => {
  await using t = await openService();
  const first = await t.call("POST", "/v1/executions", {
    code: "let total = await math.add({ a: 1, b: 2 }); return total",
    session: true,
  });
  assert.equal(first.json.result, 3, JSON.stringify(first.json));
  const { sessionId, recoveryRef } = first.json.meta;
  const second = await t.call("POST", "/v1/executions", {
    code: "total = await math.add({ a: total, b: 10 }); return total",
    sessionId,
  });
  assert.equal(second.json.result, 13);
  assert.equal(second.json.meta.sessionStatus, "reused");
  const listed = await t.call("GET", "/v1/sessions");
  assert.deepEqual(listed.json.items.map((s: { sessionId: string }) => s.sessionId), [sessionId]);
  const recovery = await t.call("GET", `/v1/recovery/${recoveryRef}`);
  assert.equal(recovery.json.entries.length, 2);
  assert.deepEqual(recovery.json.entries[0].declared, ["total"]);
  assert.equal((await t.call("GET", "/v1/recovery/rec_nope")).status, 404);
  const unknown = await t.call("POST", "/v1/executions", { code: "return 1", sessionId: "ses_x" });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, "session_not_found");
  assert.deepEqual((await t.call("DELETE", `/v1/sessions/${sessionId}`)).json, { closed: true });
  assert.equal((await t.call("DELETE", `/v1/sessions/${sessionId}`)).status, 404);
  const gone = await t.call("POST", "/v1/executions", { code: "return total", sessionId });
  assert.equal(gone.status, 404);
  const both = await t.call("POST", "/v1/executions", {
    code: "return 1",
    session: true,
    sessionId,
  });
  assert.equal(both.status, 400);
});
