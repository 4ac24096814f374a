/**
 * A child told its connectors ahead (`prepare`) builds its globals while it waits: its run
 * finds them even though the run's own connector list says nothing.
 */
import assert from "node:assert/strict";
import { METHOD_RUN, type RunParams } from "../../src/sandbox/protocol.ts";
import { assertNoSandboxChildren } from "../_helpers/processes.ts";
import { spawnTestChild as spawn } from "../_helpers/sandbox_children.ts";

const run = (module: string): RunParams => ({
  module,
  lineOffset: 0,
  input: null,
  connectors: [],
  maxResultBytes: 1 << 20,
});

Deno.test("a prepared child's run has the connectors it was told before the run", async () => {
  const prepared = await spawn();
  const plain = await spawn();
  try {
    prepared.prepare([{ name: "math", tools: ["add", "mul"] }], "key-1");
    assert.equal(prepared.preparedFor, "key-1");
    assert.equal(plain.preparedFor, undefined);
    const code = "export default () => typeof math === 'object' ? Object.keys(math) : 'none';";
    const a = await prepared.peer.request(METHOD_RUN, run(code)) as { value: unknown };
    const b = await plain.peer.request(METHOD_RUN, run(code)) as { value: unknown };
    assert.deepEqual(a.value, ["add", "mul"]);
    assert.equal(b.value, "none");
  } finally {
    for (const c of [prepared, plain]) c.kill();
    await Promise.all([prepared.exited, plain.exited]);
  }
  await assertNoSandboxChildren();
});
