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

/** The state letter of `pid` in /proc (`T`: stopped, `Z`: a zombie), undefined once it is gone. */
export async function processState(pid: number): Promise<string | undefined> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0];
  } catch {
    return undefined;
  }
}

/** CPU time `pid` has run, in ms, every thread summed (from `schedstat`); undefined once gone. */
export async function processCpuMs(pid: number): Promise<number | undefined> {
  try {
    let ns = 0;
    for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
      const stat = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/schedstat`);
      ns += Number(stat.split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * This process's sandbox children that are stopped (SIGSTOP), polled for up to `ms` until one
 * is. Synchronous on purpose: while it polls no timer of this process runs, so a stopped child's
 * deferred kill (`RETIRE_MAX_MS`, retire.ts) cannot come first on a loaded machine.
 */
export function stoppedSandboxChildren(ms = 2_000): number[] {
  const until = performance.now() + ms;
  for (;;) {
    const stopped: number[] = [];
    for (const task of Deno.readDirSync(`/proc/${Deno.pid}/task`)) {
      let kids = "";
      try {
        kids = Deno.readTextFileSync(`/proc/${Deno.pid}/task/${task.name}/children`);
      } catch {
        continue; // that thread ended
      }
      for (const pid of kids.trim().split(/\s+/).filter(Boolean).map(Number)) {
        try {
          const cmd = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
          const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
          const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
          if (cmd.includes("--deny-read") && state === "T") stopped.push(pid);
        } catch {
          // It ended while we looked.
        }
      }
    }
    if (stopped.length > 0 || performance.now() > until) return stopped;
  }
}

/**
 * How long {@link assertNoSandboxChildren} waits for children alive when it is called. Under
 * `deno test --parallel` other test files run in this process, so a child of theirs (a long run,
 * a 30 MB result) may be alive at that moment; it ends on its own within this time, a leak never.
 */
const LEAK_WAIT_MS = 10_000;

/**
 * Asserts that no sandbox child of this process outlives the check: every one alive when it is
 * called must exit within {@link LEAK_WAIT_MS}. Children started meanwhile belong to other test
 * files running in parallel, not to the caller, and are not waited for.
 */
export async function assertNoSandboxChildren(): Promise<void> {
  const sandboxed = async () =>
    (await childProcesses()).filter((p) => p.cmd.includes("--deny-read"));
  const suspects = new Set((await sandboxed()).map((p) => p.pid));
  let left: { pid: number; cmd: string }[] = [];
  const until = performance.now() + LEAK_WAIT_MS;
  while (suspects.size > 0) {
    left = (await sandboxed()).filter((p) => suspects.has(p.pid));
    if (left.length === 0) return;
    if (performance.now() > until) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(left, [], "sandbox children leaked");
}
