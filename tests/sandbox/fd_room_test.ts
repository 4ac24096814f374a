import assert from "node:assert/strict";
import { join } from "node:path";
import { FROZEN_RUN_FLAGS, REPO_ROOT } from "../_helpers/deno_run.ts";
import { FD_ROOM_ENTRIES } from "../../src/sandbox/fd_room.ts";

const LINUX = Deno.build.os === "linux";

/** What a fresh process reports around `makeFdRoom()`: its table before and after, its open descriptors. */
const PROBE = `
import { fdTableSize, makeFdRoom } from ${
  JSON.stringify(join(REPO_ROOT, "src/sandbox/fd_room.ts"))
};
const count = () => { try { return [...Deno.readDirSync("/proc/self/fd")].length; } catch { return -1; } };
const before = { size: await fdTableSize(), open: count() };
await makeFdRoom();
const after = { size: await fdTableSize(), open: count() };
await makeFdRoom(); // the second call shares the first
console.log(JSON.stringify({ before, after }));
`;

interface Report {
  before: { size?: number; open: number };
  after: { size?: number; open: number };
}

/** Runs {@link PROBE} in a fresh Deno process with `permissions`, under `sh -c` `prefix` if given. */
async function probe(permissions: string[], prefix = ""): Promise<Report> {
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(script, PROBE);
    const deno = [Deno.execPath(), "run", ...FROZEN_RUN_FLAGS, ...permissions, script];
    const command = prefix
      ? new Deno.Command("/bin/sh", { args: ["-c", `${prefix}; exec "$@"`, "sh", ...deno] })
      : new Deno.Command(deno[0], { args: deno.slice(1) });
    const { code, stdout, stderr } = await command.output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    return JSON.parse(new TextDecoder().decode(stdout));
  } finally {
    await Deno.remove(script);
  }
}

Deno.test({
  name: "makeFdRoom() grows a fresh process's descriptor table once and leaves nothing open",
  ignore: !LINUX,
  async fn() {
    const { before, after } = await probe(["--allow-all"]);
    assert.ok(before.size !== undefined && before.size < FD_ROOM_ENTRIES, JSON.stringify(before));
    assert.ok((after.size ?? 0) >= FD_ROOM_ENTRIES, JSON.stringify(after));
    assert.equal(after.open, before.open);
  },
});

Deno.test({
  name: "makeFdRoom() stays within half the soft limit on open descriptors",
  ignore: !LINUX,
  async fn() {
    // 600 descriptors: the room may reach descriptor 300, so the table stops at 512 entries
    // (without the cap it would open past 512 and reach 1,024).
    const { after } = await probe(["--allow-all"], "ulimit -n 600");
    assert.ok(
      (after.size ?? 0) >= 512 && (after.size ?? 0) < FD_ROOM_ENTRIES,
      JSON.stringify(after),
    );
  },
});

Deno.test("makeFdRoom() without permission to look does nothing and does not throw", async () => {
  // Deno lets only --allow-all read /proc/self; reading /dev/null alone is not enough.
  const { before, after } = await probe(["--allow-read=/dev/null"]);
  assert.equal(before.size, undefined);
  assert.equal(after.size, undefined);
});
