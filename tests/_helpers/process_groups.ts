/**
 * Process-group checks for tests: a server started by Cordon leads its own
 * group (it is spawned detached), so "nothing left behind" means "no live
 * process in that group", wrappers' children included.
 *
 * @module
 */
import assert from "node:assert/strict";

/** How long exits already under way may take before a leftover counts as a leak. */
const EXIT_GRACE_MS = 2_000;

/** Live (non-zombie) processes whose process group is `pgid`, from /proc. */
export async function groupProcesses(pgid: number): Promise<{ pid: number; cmd: string }[]> {
  const out: { pid: number; cmd: string }[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
      // After the command (which may hold spaces): state, ppid, pgrp, …
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || Number(fields[2]) !== pgid) continue;
      const cmd = (await Deno.readTextFile(`/proc/${entry.name}/cmdline`)).replaceAll("\0", " ")
        .trim();
      out.push({ pid: Number(entry.name), cmd });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** Asserts that no process of group `pgid` is alive (waits briefly for exits in flight). */
export async function assertGroupGone(pgid: number): Promise<void> {
  const deadline = Date.now() + EXIT_GRACE_MS;
  let left = await groupProcesses(pgid);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = await groupProcesses(pgid);
  }
  assert.deepEqual(left, [], `processes of server group ${pgid} leaked`);
}
