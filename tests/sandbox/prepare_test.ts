/**
 * A child told its connectors ahead (`prepare`) builds its globals while it waits: its run
 * finds them even though the run's own connector list says nothing.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectMemoryGuard } from "../../src/sandbox/cgroup.ts";
import { SandboxChild } from "../../src/sandbox/child.ts";
import { METHOD_RUN, type RunParams } from "../../src/sandbox/protocol.ts";
import { assertNoSandboxChildren } from "../_helpers/processes.ts";

async function spawn(): Promise<SandboxChild> {
  const base = join(tmpdir(), "cordon");
  await Deno.mkdir(join(base, "empty"), { recursive: true });
  return await SandboxChild.spawn({
    env: {
      denoPath: Deno.execPath(),
      guestEntry: fileURLToPath(new URL("../../src/sandbox/guest/entry.ts", import.meta.url)),
      denoDir: join(base, "deno"),
      cwd: join(base, "empty"),
      memoryGuard: await detectMemoryGuard("off"),
      allowPrivateNetwork: false,
    },
    policy: { heapMiB: 64, netAllow: [] },
    limits: { maxFrameBytes: 1 << 20, maxOutputBytes: 1 << 24 },
    memoryBytes: 1 << 28,
  });
}

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
