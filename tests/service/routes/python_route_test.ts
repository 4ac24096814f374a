import assert from "node:assert/strict";
import { openService } from "../_service.ts";

Deno.test("HTTP: Python and bash blocks run with their language; an unknown one is refused", async () => {
  await using t = await openService();
  const run = await t.call("POST", "/v1/executions", {
    language: "python",
    code: "r = await math.add(a=2, b=3)\nprint('sum', r)\nr",
    timeoutMs: 60_000,
  });
  assert.equal(run.status, 200, JSON.stringify(run.json));
  assert.equal(run.json.status, "completed", JSON.stringify(run.json));
  assert.equal(run.json.result, 5);
  assert.equal(run.json.meta.language, "python");
  assert.deepEqual(run.json.logs.map((l: { message: string }) => l.message), ["sum 5"]);
  const bash = await t.call("POST", "/v1/executions", { language: "bash", code: "echo hi" });
  assert.deepEqual(bash.json.logs.map((l: { message: string }) => l.message), ["hi"]);
  const cobol = await t.call("POST", "/v1/executions", { language: "cobol", code: "x" });
  assert.deepEqual([cobol.status, cobol.json.error.code], [400, "invalid_request"]);
});
