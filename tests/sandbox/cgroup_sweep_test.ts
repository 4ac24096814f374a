import assert from "node:assert/strict";
import { join } from "node:path";
import {
  isDeadHostGroup,
  parentGroupName,
  sweepDeadGroups,
} from "../../src/sandbox/cgroup_sweep.ts";
import { hostTag, processStartTicks } from "../../src/sandbox/host_tag.ts";

/** A process that exits when told, with its tag fields read while it lived. */
async function withProcess(
  fn: (pid: number, ticks: number, exit: () => Promise<void>) => Promise<void>,
) {
  const sleeper = new Deno.Command("sleep", { args: ["30"], stdin: "null" }).spawn();
  let done = false;
  const exit = async () => {
    if (done) return;
    done = true;
    sleeper.kill("SIGKILL");
    await sleeper.status;
  };
  try {
    const ticks = processStartTicks(sleeper.pid);
    assert.ok(ticks !== undefined && ticks > 0);
    await fn(sleeper.pid, ticks, exit);
  } finally {
    await exit();
  }
}

Deno.test("isDeadHostGroup() judges a group by its host's pid and start time", async () => {
  const ns = hostTag().pidNamespace;
  assert.ok(ns > 0, "this host reads its pid namespace");
  assert.equal(isDeadHostGroup(parentGroupName()), false, "this host's own group");
  assert.match(parentGroupName(), /^cordon-\d+-\d+-\d+-[0-9a-f]{8}$/);
  await withProcess(async (pid, ticks, exit) => {
    const name = `cordon-${pid}-${ticks}-${ns}-0badf00d`;
    assert.equal(isDeadHostGroup(name), false, "its host is alive");
    // The pid is alive but started at another time: the group's host is gone, the pid reused.
    assert.equal(isDeadHostGroup(`cordon-${pid}-${ticks + 1}-${ns}-0badf00d`), true);
    // Another pid namespace cannot be judged from here: left alone.
    assert.equal(isDeadHostGroup(`cordon-${pid}-${ticks + 1}-${ns + 1}-0badf00d`), false);
    assert.equal(isDeadHostGroup(`cordon-${pid}-0badf00d`), false, "legacy name, pid alive");
    await exit();
    assert.equal(isDeadHostGroup(name), true, "its host exited");
    assert.equal(isDeadHostGroup(`cordon-${pid}-0badf00d`), true, "legacy name, pid gone");
  });
  for (const other of ["cordon-empty", "c1-0badf00d", "cordon-1-2-3-XYZ", "system.slice"]) {
    assert.equal(isDeadHostGroup(other), false, other);
  }
});

Deno.test("sweepDeadGroups() removes dead hosts' groups with their subgroups and leaves the rest", async () => {
  // Plain directories stand in for a cgroup hierarchy (no processes, no cgroup.kill).
  const root = await Deno.makeTempDir({ prefix: "cordon-sweep-" });
  try {
    const ns = hostTag().pidNamespace;
    let dead = "";
    await withProcess(async (pid, ticks, exit) => {
      dead = `cordon-${pid}-${ticks}-${ns}-0badf00d`;
      await exit();
    });
    const mine = parentGroupName();
    for (const dir of [join(dead, "c1-aaaaaaaa"), join(dead, "c2-bbbbbbbb"), mine, "other"]) {
      await Deno.mkdir(join(root, dir), { recursive: true });
    }
    const sweep = await sweepDeadGroups(root);
    assert.deepEqual(sweep, { groups: 1, processes: 0 });
    const left = [];
    for await (const e of Deno.readDir(root)) left.push(e.name);
    assert.deepEqual(left.sort(), [mine, "other"].sort());
    assert.deepEqual(await sweepDeadGroups(join(root, "missing")), { groups: 0, processes: 0 });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
