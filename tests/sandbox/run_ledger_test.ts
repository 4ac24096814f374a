import assert from "node:assert/strict";
import { join } from "node:path";
import { formatHostTag, hostTag, processStartTicks } from "../../src/sandbox/host_tag.ts";
import {
  forgetRun,
  locationDataDirs,
  noteRun,
  RUN_LEDGER_DIR,
  sweepDeadRuns,
} from "../../src/sandbox/run_ledger.ts";
import { exists } from "../_helpers/files.ts";

/** The tag of a process that has exited. */
async function deadTag(): Promise<string> {
  const p = new Deno.Command("sleep", { args: ["30"], stdin: "null" }).spawn();
  const startTicks = processStartTicks(p.pid)!;
  p.kill("SIGKILL");
  await p.status;
  return formatHostTag({ pid: p.pid, startTicks, pidNamespace: hostTag().pidNamespace });
}

/** Writes something where Deno keeps `runId`'s localStorage and caches. */
async function fillLocation(denoDir: string, runId: string): Promise<string[]> {
  const dirs = await locationDataDirs(denoDir, runId);
  for (const dir of dirs) {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(join(dir, "data"), "x");
  }
  return dirs;
}

Deno.test("sweepDeadRuns() wipes the location data of a dead host's runs and leaves a live host's", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "cordon-ledger-" });
  try {
    const live = crypto.randomUUID();
    await noteRun(denoDir, live);
    const liveDirs = await fillLocation(denoDir, live);

    const dead = crypto.randomUUID();
    const ledger = join(denoDir, RUN_LEDGER_DIR, await deadTag());
    await Deno.mkdir(ledger, { recursive: true });
    await Deno.writeTextFile(join(ledger, dead), "");
    const deadDirs = await fillLocation(denoDir, dead);

    assert.deepEqual(await sweepDeadRuns(denoDir), { hosts: 1, runs: 1 });
    for (const dir of deadDirs) assert.equal(await exists(dir), false, dir);
    assert.equal(await exists(ledger), false);
    for (const dir of liveDirs) assert.equal(await exists(dir), true, dir);
    assert.equal(await exists(join(denoDir, RUN_LEDGER_DIR, formatHostTag(), live)), true);

    await forgetRun(denoDir, live);
    assert.equal(await exists(join(denoDir, RUN_LEDGER_DIR, formatHostTag(), live)), false);
    assert.deepEqual(await sweepDeadRuns(denoDir), { hosts: 0, runs: 0 });
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

Deno.test("sweepDeadRuns() on a directory without a ledger does nothing", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "cordon-ledger-" });
  try {
    assert.deepEqual(await sweepDeadRuns(denoDir), { hosts: 0, runs: 0 });
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
