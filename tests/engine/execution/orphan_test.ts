/**
 * Children never outlive their host, and a starting host sweeps what a dead
 * one left. Each test runs a real host process (tests/fixtures/orphan_host.ts),
 * kills it with SIGKILL and watches /proc.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { createRuntime } from "../../../mod.ts";
import { locationDataDirs } from "../../../src/sandbox/run_ledger.ts";
import { FROZEN_RUN_FLAGS } from "../../_helpers/deno_run.ts";
import { exists } from "../../_helpers/files.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const HOST = fileURLToPath(new URL("../../fixtures/orphan_host.ts", import.meta.url));

/**
 * How long a child may live after its host died. The kernel signals it as
 * the host exits; the rest is this test's polling on a loaded machine.
 */
const ORPHAN_GONE_MS = 3_000;

/** How long a host may take to start and report (a cold type check on a loaded machine). */
const REPORT_WAIT_MS = 60_000;

interface Started {
  event: "started" | "no-cgroups";
  pids: number[];
  reason?: string;
  /** The sandbox child's command line (spin). */
  cmd?: string;
  /** The script stored something in localStorage (spin). */
  stored?: boolean;
}

/** Starts the fixture host in `mode` and reads its one report line. */
async function startHost(mode: string): Promise<{ host: Deno.ChildProcess; report: Started }> {
  const host = new Deno.Command(Deno.execPath(), {
    args: ["run", ...FROZEN_RUN_FLAGS, "--allow-all", HOST, mode],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  const reader = host.stdout.pipeThrough(new TextDecoderStream()).getReader();
  // A host that never reports must fail the test, not hang it.
  const timer = setTimeout(() => host.kill("SIGKILL"), REPORT_WAIT_MS);
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  clearTimeout(timer);
  await reader.cancel();
  const report = text.includes("\n") ? JSON.parse(text.slice(0, text.indexOf("\n"))) : undefined;
  if (report?.event !== "started" && report?.event !== "no-cgroups") {
    try {
      host.kill("SIGKILL");
    } catch { /* dead already */ }
    await host.status;
    throw new Error(`The ${mode} host did not report what it started: ${text}`);
  }
  return { host, report };
}

async function killHost(host: Deno.ChildProcess): Promise<void> {
  host.kill("SIGKILL");
  assert.equal((await host.status).signal, "SIGKILL");
}

/** The fields of /proc/<pid>/stat after the command, or undefined once it is gone or a zombie. */
function stat(pid: number): string[] | undefined {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? undefined : fields;
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => stat(pid) !== undefined;

/** CPU clock ticks `pid` has used (user + system). */
function cpuTicks(pid: number): number {
  const fields = stat(pid);
  return fields ? Number(fields[11]) + Number(fields[12]) : 0;
}

async function poll(what: string, ms: number, done: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Where the cgroup v2 hierarchy is mounted (alone, or beside v1 as `unified`). */
function unifiedMount(): string {
  try {
    Deno.statSync("/sys/fs/cgroup/cgroup.controllers");
    return "/sys/fs/cgroup";
  } catch {
    return "/sys/fs/cgroup/unified";
  }
}

/** Kills what a failed test would otherwise leave burning. */
function reap(pids: number[]): void {
  for (const pid of pids) {
    try {
      if (alive(pid)) Deno.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
}

/** Runs `mode`'s host, checks what it started is alive, kills the host, and expects it gone. */
async function assertDiesWithHost(
  mode: string,
  before?: (pids: number[]) => Promise<void>,
): Promise<Started> {
  const { host, report } = await startHost(mode);
  const pids = report.pids;
  try {
    assert.ok(pids.length >= 1, `the ${mode} host reports what it started`);
    assert.ok(pids.every(alive));
    await before?.(pids);
    await killHost(host);
    await poll(`the ${mode} host's children to die`, ORPHAN_GONE_MS, () => !pids.some(alive));
    return report;
  } finally {
    try {
      host.kill("SIGKILL");
    } catch { /* dead already */ }
    await host.status;
    reap(pids);
  }
}

Deno.test("a sandbox child spinning in while (true) {} dies with its SIGKILLed host; the next host wipes its storage", async () => {
  const report = await assertDiesWithHost("spin", async ([pid]) => {
    // It is spinning (CPU time grows), so it will never read its closed stdin.
    const start = cpuTicks(pid);
    await poll("the child to spin", 10_000, () => cpuTicks(pid) - start >= 20);
  });
  const runId = /--location=https:\/\/run-([0-9a-f-]{36})\.invalid/.exec(report.cmd ?? "")?.[1];
  assert.ok(runId, "the child runs at its own --location");
  // Should the sandbox ever lose localStorage, a run has nothing there to leave.
  if (!report.stored) return;
  // Not checked before the sweep: with --parallel, another file's runtime may sweep first.
  const [storage] = await locationDataDirs(join(tmpdir(), "cordon", "deno"), runId);
  await using _runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  assert.equal(await exists(storage), false, "a starting host wipes it");
});

Deno.test("an idle warm-pool child dies with its SIGKILLed host", async () => {
  await assertDiesWithHost("pool");
});

Deno.test("a finished run's child, stopped while another run went on, dies with its SIGKILLed host", async () => {
  await assertDiesWithHost("retired", ([pid]) => {
    assert.equal(stat(pid)?.[0], "T", "the finished run's child is stopped, not running or gone");
    return Promise.resolve();
  });
});

Deno.test("a stdio MCP server that ignores its stdin dies with its SIGKILLed host", async () => {
  await assertDiesWithHost("mcp", async ([pid]) => {
    // The guard (setpriv) asks for the death signal and then becomes the server: killed before
    // that, on a loaded machine, the host would leave a process that never asked.
    await poll("the server to start under its guard", 10_000, () => {
      try {
        return Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0")[0].endsWith("sleep");
      } catch {
        return false;
      }
    });
  });
});

Deno.test("a starting runtime kills what runs in a dead host's cgroup and removes the group", async () => {
  const { host, report } = await startHost("cgroup");
  if (report.event === "no-cgroups") {
    await killHost(host);
    return; // Nothing to sweep on a host without cgroups (the reason says what was tried).
  }
  const [pid] = report.pids;
  try {
    const groups = (await Deno.readTextFile(`/proc/${pid}/cgroup`)).split("\n")
      .map((line) => /^\d+:([^:]*):(.*\/cordon-[^/]+)\/[^/]+$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => `${m![1] === "" ? unifiedMount() : `/sys/fs/cgroup/${m![1]}`}${m![2]}`);
    assert.ok(groups.length >= 1, "the sleeper is in a cordon group");
    await killHost(host);
    // Started without the orphan guard, it outlives its host: the leak a sweep must close.
    // With --parallel every test file shares this process, so another file's runtime may sweep
    // it first; either way a starting runtime's sweep is what kills it and removes its groups.
    await using _runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
    await poll("the dead host's process to be killed", ORPHAN_GONE_MS, () => !alive(pid));
    await poll(
      "the dead host's groups to be removed",
      ORPHAN_GONE_MS,
      () => groups.every((dir) => !existsSync(dir)),
    );
  } finally {
    try {
      host.kill("SIGKILL");
    } catch { /* dead already */ }
    await host.status;
    reap([pid]);
  }
});
