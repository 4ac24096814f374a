import assert from "node:assert/strict";
import { createRuntime } from "../../../mod.ts";

Deno.test({
  name: "bootstrap commands run as the runtime's own programs: once, again when their marker goes",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir();
    await using rt = await createRuntime({
      db: ":memory:",
      dataDir,
      pool: { size: 0 },
      python: { pool: 0 },
    });
    const bootstrap = {
      commands: [{
        key: "setup",
        cmd: "python3",
        args: [
          "-c",
          "import os\nn = int(open('count.txt').read()) if os.path.exists('count.txt') else 0\nopen('count.txt', 'w').write(str(n + 1))",
        ],
        markerPath: "work/.setup-done",
        timeoutMs: 60_000,
      }, {
        key: "shell",
        cmd: "bash",
        args: ["-c", "echo from bash > work/bash.txt"],
      }],
    };
    const read =
      "return [await workspace.readText('count.txt'), await workspace.readText('work/bash.txt')];";
    const first = await rt.execute({ code: read, workspace: { bootstrap, persist: true } });
    assert.equal(first.status, "completed", JSON.stringify(first));
    assert.deepEqual((first as { result: unknown }).result, ["1", "from bash\n"]);
    const id = (first as { workspace?: { id: string } }).workspace!.id;
    // Unchanged and its marker still there: not run again.
    const second = await rt.execute({ code: read, workspace: { id, bootstrap } });
    assert.deepEqual((second as { result: unknown }).result, ["1", "from bash\n"]);
    // The marker removed: the step heals by running again.
    const removed = await rt.execute({
      code: "await Deno.remove(workspace.path('work/.setup-done')); return 1;",
      workspace: { id },
    });
    assert.equal(removed.status, "completed", JSON.stringify(removed));
    const third = await rt.execute({ code: read, workspace: { id, bootstrap } });
    assert.deepEqual((third as { result: unknown }).result, ["2", "from bash\n"]);
    // A failing required command fails the run with a typed error naming it.
    const failing = await rt.execute({
      code: "return 1",
      workspace: {
        bootstrap: { commands: [{ key: "broken", cmd: "bash", args: ["-c", "exit 7"] }] },
      },
    });
    assert.equal(failing.status, "error");
    assert.match(JSON.stringify((failing as { error: unknown }).error), /broken/);
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  },
});
