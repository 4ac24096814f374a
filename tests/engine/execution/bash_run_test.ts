import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecuteResult } from "../../../mod.ts";

function world() {
  const effects = { add: 0, send: 0 };
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add two numbers",
        input: z.object({ a: z.number(), b: z.number() }),
        execute: ({ a, b }) => (effects.add++, { sum: a + b }),
      },
      send: {
        description: "Needs a person's approval",
        input: z.object({ to: z.string() }),
        requiresApproval: true,
        execute: ({ to }) => (effects.send++, `sent:${to}`),
      },
    },
  });
  return { math, effects };
}

const lines = (r: ExecuteResult) => r.logs.map((l) => `${l.level}:${l.message}`);

Deno.test({
  name: "bash: connectors are commands (key=value, JSON, stdin), journaled; input in $INPUT",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { math, effects } = world();
    await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 }, connectors: [math] });
    const r = await rt.execute({
      language: "bash",
      input: { n: 20 },
      code: [
        "math add a=1 b=2",
        'math add "{\\"a\\": $(echo "$INPUT" | jq .n), \\"b\\": 1}" | jq .sum',
        'echo \'{"a": 2, "b": 2}\' | math add',
        "math add a=x b=1 || echo failed $?",
        "math nope; echo status $?",
      ].join("\n"),
    });
    assert.equal(r.status, "completed", JSON.stringify(r));
    assert.deepEqual(lines(r).filter((l) => l.startsWith("log:")), [
      'log:{"sum":3}',
      "log:21",
      'log:{"sum":4}',
      "log:failed 1",
      "log:status 2",
    ]);
    assert.match(lines(r).join("\n"), /error:math\.add: invalid_input/);
    assert.equal(effects.add, 3);
    assert.deepEqual(r.calls.map((c) => c.tool), ["add", "add", "add", "add"]);
    // bash children are kept warm once bash is used: the next block takes one.
    await rt.warm();
    const warm = await rt.execute({ language: "bash", code: "echo warm" });
    assert.deepEqual([warm.status, warm.meta.pooled, lines(warm)], ["completed", true, [
      "log:warm",
    ]]);
  },
});

Deno.test({
  name: "bash: an approval pauses the block; approve resumes it and the replay repeats no call",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { math, effects } = world();
    await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 }, connectors: [math] });
    const paused = await rt.execute({
      language: "bash",
      code: "math add a=1 b=1 > /dev/null\nmath send to=ann\necho after",
    });
    assert.equal(paused.status, "paused", JSON.stringify(paused));
    const done = await rt.approve(paused.executionId);
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.deepEqual(lines(done).filter((l) => l.startsWith("log:")), [
      "log:sent:ann",
      "log:after",
    ]);
    assert.deepEqual(effects, { add: 1, send: 1 });
  },
});

Deno.test({
  name: "bash: a non-zero exit is script_error with its status; files land in the workspace",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
    const failed = await rt.execute({ language: "bash", code: "echo partial\nexit 4" });
    assert.equal(failed.status, "error");
    if (failed.status !== "error") return;
    assert.deepEqual([failed.error.code, failed.error.details], ["script_error", { exitCode: 4 }]);
    assert.deepEqual(lines(failed), ["log:partial"]);
    const ws = await rt.execute({
      language: "sh",
      code: "mkdir -p out && wc -l < in.txt > out/count.txt && cat out/count.txt",
      workspace: { files: { "in.txt": "a\nb\nc\n" }, outputs: { globs: ["out/*"] } },
    });
    assert.equal(ws.status, "completed", JSON.stringify(ws));
    assert.deepEqual(lines(ws), ["log:3"]);
    assert.deepEqual(
      (ws as { workspace?: { outputs: { path: string }[] } }).workspace?.outputs.map((o) => o.path),
      ["out/count.txt"],
    );
  },
});
