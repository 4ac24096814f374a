/**
 * Process-table checks for tests: a sandbox child that outlives its test is
 * a leak, whatever the sanitizers say.
 *
 * @module
 */
import assert from "node:assert/strict";

/** Live children of this process (pid and command line), from /proc. */
export async function childProcesses(
  parent: number = Deno.pid,
): Promise<{ pid: number; cmd: string }[]> {
  const out: { pid: number; cmd: string }[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
      // Fields after the command (which may hold spaces) start after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const state = fields[0];
      const ppid = Number(fields[1]);
      if (ppid !== parent || state === "Z") continue;
      const cmd = (await Deno.readTextFile(`/proc/${entry.name}/cmdline`)).replaceAll("\0", " ")
        .trim();
      out.push({ pid: Number(entry.name), cmd });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** Asserts that no sandbox child of this process is alive (waits briefly for exits in flight). */
export async function assertNoSandboxChildren(): Promise<void> {
  let left: { pid: number; cmd: string }[] = [];
  for (let i = 0; i < 50; i++) {
    left = (await childProcesses()).filter((p) => p.cmd.includes("--deny-read"));
    if (left.length === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(left, [], "sandbox children leaked");
}
