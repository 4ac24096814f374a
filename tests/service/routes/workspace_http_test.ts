import assert from "node:assert/strict";
import { openService } from "../_service.ts";

Deno.test("HTTP workspaces: artifact in, output out as an artifact; host paths cannot be staged", async () => {
  await using t = await openService();
  const put = await fetch(`${t.service.url}/v1/artifacts/notes/in.txt`, {
    method: "PUT",
    headers: { "content-type": "text/plain" },
    body: "three words here",
  });
  assert.equal(put.status, 201);
  await put.body?.cancel();
  const run = await t.call("POST", "/v1/executions", {
    code: `const words = (await workspace.readText("in.txt")).split(" ").length;
      await workspace.writeText("out/count.txt", String(words));
      return words;`,
    workspace: {
      inputs: { "in.txt": "artifact://notes/in.txt" },
      outputs: { globs: ["out/*"], saveAs: { prefix: "counts/" } },
    },
  });
  assert.equal(run.json.result, 3, JSON.stringify(run.json));
  assert.equal(run.json.workspace.outputs[0].ref, "counts/out/count.txt@1");
  const got = await fetch(`${t.service.url}/v1/artifacts/counts/out/count.txt`);
  assert.equal(await got.text(), "3");
  const staged = await t.call("POST", "/v1/executions", {
    code: "return 1",
    workspace: { stage: [{ from: "/etc", to: "etc" }] },
  });
  assert.equal(staged.status, 400);
  assert.equal(staged.json.error.code, "invalid_request");
  const escape = await t.call("POST", "/v1/executions", {
    code: "return 1",
    workspace: { files: { "../../x": "y" } },
  });
  assert.equal(escape.status, 400);
  // host:// never comes over HTTP: neither as an input list nor in the path → URI map.
  for (const inputs of [[{ from: "host:///etc/passwd" }], { "p": "host:///etc/passwd" }]) {
    const host = await t.call("POST", "/v1/executions", {
      code: "return 1",
      workspace: { inputs },
    });
    assert.equal(host.status, 400, JSON.stringify(inputs));
    assert.equal(host.json.error.code, "invalid_request");
  }
});
