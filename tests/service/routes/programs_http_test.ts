import assert from "node:assert/strict";
import { hashToken } from "../../../src/service/access/keys.ts";
import { openService } from "../_service.ts";

const ACME = "cordon_programs_http_acme_key_0123456789";
const GLOBEX = "cordon_programs_http_globex_key_0123456789";

Deno.test({
  name: "HTTP programs and code blocks: run, start/poll/input/kill/close, namespaces kept apart",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using t = await openService({
      auth: "keys",
      keys: [
        { name: "acme", sha256: await hashToken(ACME), scopes: ["execute"], namespace: "acme" },
        {
          name: "globex",
          sha256: await hashToken(GLOBEX),
          scopes: ["execute"],
          namespace: "globex",
        },
      ],
    });
    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    // A Python file of an inline workspace, to its end.
    const run = await t.call("POST", "/v1/programs/run", {
      cmd: "python3",
      args: ["hello.py", "there"],
      workspace: { files: { "hello.py": "import sys\nprint('hi', sys.argv[1])\nsys.exit(2)\n" } },
      timeoutMs: 60_000,
    }, as(ACME));
    assert.equal(run.status, 200, JSON.stringify(run.json));
    assert.deepEqual([run.json.stdout, run.json.exitCode, run.json.timedOut], [
      "hi there\n",
      2,
      false,
    ]);
    // Code blocks out of a model's answer, with the document's delimiter.
    const fence = "`".repeat(3);
    const code = await t.call("POST", "/v1/code", {
      text: `Try:\n${fence}bash\necho $((2 + 3))\n${fence}\n${fence}python\nprint('py')\n${fence}`,
      delimiter: { start: fence, end: fence },
    }, as(ACME));
    assert.equal(code.status, 200, JSON.stringify(code.json));
    assert.deepEqual([code.json.output, code.json.exitCode], ["5\npy", 0]);
    assert.deepEqual((await t.call("GET", "/v1/code/delimiter", undefined, as(ACME))).json, {
      start: fence,
      end: fence,
    });
    const ruby = await t.call(
      "POST",
      "/v1/code",
      { codeBlocks: [{ language: "ruby", code: "1" }] },
      as(ACME),
    );
    assert.deepEqual([ruby.status, ruby.json.error.code], [400, "unsupported_language"]);
    // An interactive one.
    const started = await t.call("POST", "/v1/programs", {
      cmd: "python3",
      args: ["-c", "while True:\n    l = input()\n    print('got', l)"],
      timeoutMs: 60_000,
    }, as(ACME));
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const sid = started.json.id;
    assert.equal(started.json.state.status, "running");
    // Another namespace sees none of it.
    for (
      const [method, path] of [["GET", `/v1/programs/${sid}`], ["GET", `/v1/programs/${sid}/poll`]]
    ) {
      assert.equal((await t.call(method, path, undefined, as(GLOBEX))).status, 404);
    }
    assert.equal((await t.call("POST", `/v1/programs/${sid}/kill`, {}, as(GLOBEX))).status, 404);
    assert.deepEqual((await t.call("GET", "/v1/programs", undefined, as(GLOBEX))).json.items, []);
    const input = await t.call(
      "POST",
      `/v1/programs/${sid}/input`,
      { data: "x", newline: true },
      as(ACME),
    );
    assert.deepEqual(input.json, { written: true });
    let seen = "";
    for (let i = 0; i < 300 && !seen.includes("got x"); i++) {
      seen += (await t.call("GET", `/v1/programs/${sid}/poll`, undefined, as(ACME))).json.output;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(seen, "got x");
    const log = await t.call("GET", `/v1/programs/${sid}/log?offset=0`, undefined, as(ACME));
    assert.deepEqual(log.json, { output: "got x", offset: 0, nextOffset: 1 });
    const killed = await t.call("POST", `/v1/programs/${sid}/kill`, { graceMs: 0 }, as(ACME));
    assert.deepEqual(killed.json.state, { status: "exited", exitCode: -1 });
    const after = await t.call("GET", `/v1/programs/${sid}`, undefined, as(ACME));
    assert.equal(after.json.result.exitCode, -1);
    const late = await t.call("POST", `/v1/programs/${sid}/input`, { data: "y" }, as(ACME));
    assert.deepEqual([late.status, late.json.error.code], [409, "invalid_state"]);
    assert.deepEqual((await t.call("DELETE", `/v1/programs/${sid}`, undefined, as(ACME))).json, {
      closed: true,
    });
    assert.equal((await t.call("GET", `/v1/programs/${sid}`, undefined, as(ACME))).status, 404);
    // Hostile specs are typed refusals.
    const bad = await t.call("POST", "/v1/programs/run", {
      cmd: "sh",
      args: ["-c", "x"],
      cwd: "../x",
    }, as(ACME));
    assert.deepEqual([bad.status, bad.json.error.code], [400, "invalid_request"]);
    const binary = await t.call("POST", "/v1/programs/run", { cmd: "/bin/ls" }, as(ACME));
    assert.deepEqual([binary.status, binary.json.error.code], [501, "not_supported"]);
    const extra = await t.call("POST", "/v1/programs/run", { cmd: "bash", shell: true }, as(ACME));
    assert.equal(extra.status, 400);
    // Python over the executions route too.
    const py = await t.call(
      "POST",
      "/v1/executions",
      { language: "python", code: "6 * 7" },
      as(ACME),
    );
    assert.equal(py.json.result, 42, JSON.stringify(py.json));
  },
});
