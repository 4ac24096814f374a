/**
 * The floor: a raw `deno` spawn of an empty script, with no flags and with
 * Cordon's sandbox flags (same env and working directory, no guest, no
 * cgroup).
 *
 * @module
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childArgs } from "../src/sandbox/flags.ts";
import { brief, check, timed } from "./stats.ts";

/** Cordon's default DENO_DIR and working directory for children (src/engine/runtime.ts). */
export const DENO_DIR = join(tmpdir(), "cordon", "deno");
export const CWD = join(tmpdir(), "cordon", "empty");

/** An empty script in a temp dir; removed by the returned function. */
export async function emptyScript(): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "cordon-bench-" });
  const path = join(dir, "empty.ts");
  await Deno.writeTextFile(path, "");
  return { path, remove: () => Deno.remove(dir, { recursive: true }) };
}

/** `deno run --no-config <empty>`, the way a caller would run it. */
export function rawSpawn(path: string): Promise<Deno.CommandOutput> {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", path],
    stdout: "null",
    stderr: "null",
  }).output();
}

/** An empty script under Cordon's flags, env and working directory (no guest, no cgroup). */
function cordonFlagsSpawn(path: string): Promise<Deno.CommandOutput> {
  const args = childArgs({
    policy: { heapMiB: 128, netAllow: [] },
    guestEntry: path,
    runId: crypto.randomUUID(),
  });
  return new Deno.Command(Deno.execPath(), {
    args,
    cwd: CWD,
    clearEnv: true,
    env: { DENO_DIR, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdout: "null",
    stderr: "null",
  }).output();
}

/** Raw spawn wall times: no flags, and Cordon's flags. */
export async function rawSpawnBench(samples: number) {
  await Deno.mkdir(CWD, { recursive: true });
  await Deno.mkdir(DENO_DIR, { recursive: true });
  const script = await emptyScript();
  try {
    const plain: number[] = [];
    const flagged: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      const a = await timed(() => rawSpawn(script.path));
      check(a.value.success, "the raw spawn failed");
      const b = await timed(() => cordonFlagsSpawn(script.path));
      check(b.value.success, "the spawn with Cordon's flags failed");
      if (i < 3) continue;
      plain.push(a.ms);
      flagged.push(b.ms);
    }
    return { ...brief(plain), cordonFlagsMs: brief(flagged) };
  } finally {
    await script.remove();
  }
}
