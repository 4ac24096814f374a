import assert from "node:assert/strict";
import { join } from "node:path";
import {
  detectOrphanGuard,
  noOrphanGuard,
  PARENT_DEATH_SIGNAL,
  SETPRIV_PATHS,
} from "../../src/sandbox/orphan_guard.ts";
import { FROZEN_RUN_FLAGS, REPO_ROOT } from "../_helpers/deno_run.ts";

/** True when this machine has util-linux's setpriv where the guard looks first. */
function hasSetpriv(): boolean {
  return SETPRIV_PATHS.some((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
}

Deno.test("detectOrphanGuard() runs children under setpriv --pdeathsig KILL where it exists", async () => {
  const guard = await detectOrphanGuard();
  if (!hasSetpriv()) {
    assert.equal(guard.kind, "none");
    assert.match(guard.reason, /setpriv/);
    return;
  }
  assert.equal(guard.kind, "pdeathsig");
  const line = guard.wrap("/usr/local/bin/deno", ["run", "entry.ts"]);
  assert.ok(SETPRIV_PATHS.includes(line.program));
  assert.deepEqual(line.args, [
    "--pdeathsig",
    PARENT_DEATH_SIGNAL,
    "--",
    "/usr/local/bin/deno",
    "run",
    "entry.ts",
  ]);
  // The wrapped line really runs the program (setpriv execs it: same pid, same exit code).
  const probe = guard.wrap("/bin/sh", ["-c", "exit 7"]);
  const { code } = await new Deno.Command(probe.program, { args: probe.args }).output();
  assert.equal(code, 7);
});

Deno.test("detectOrphanGuard() without a usable setpriv starts children as they are and says why", async () => {
  const notSetpriv = await Deno.makeTempFile({ prefix: "cordon-not-setpriv-" });
  try {
    // Missing, and present but not a program that accepts --pdeathsig.
    const guard = await detectOrphanGuard({ paths: ["/nonexistent/setpriv", notSetpriv] });
    assert.equal(guard.kind, "none");
    assert.match(guard.reason, /no setpriv with --pdeathsig/);
    assert.match(guard.reason, /nonexistent/);
    assert.deepEqual(guard.wrap("deno", ["run", "x.ts"]), {
      program: "deno",
      args: ["run", "x.ts"],
    });
  } finally {
    await Deno.remove(notSetpriv);
  }
  assert.equal(noOrphanGuard("off").kind, "none");
});

Deno.test("detectOrphanGuard() in a host not allowed to run setpriv falls back and says why", async () => {
  if (!hasSetpriv()) return;
  const module = new URL("../../src/sandbox/orphan_guard.ts", import.meta.url).href;
  const script = await Deno.makeTempFile({ prefix: "cordon-guard-", suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      script,
      `import { detectOrphanGuard } from ${JSON.stringify(module)};
       console.log(JSON.stringify(await detectOrphanGuard()));`,
    );
    const { stdout, success } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", "--allow-read", "--allow-run=deno", script],
      stderr: "inherit",
    }).output();
    assert.ok(success);
    const guard = JSON.parse(new TextDecoder().decode(stdout));
    assert.equal(guard.kind, "none");
    assert.match(guard.reason, /not allowed to run \/.*setpriv/);
  } finally {
    await Deno.remove(script);
  }
});

Deno.test("a guarded child outlives the host's idle thread pools: only the host's death ends it", async () => {
  // PR_SET_PDEATHSIG fires when the parent *thread* exits. Deno forks from the thread that calls
  // spawn() (the main thread); were it a worker thread of a pool, that thread would end after
  // ~10 s idle and take the child with it. The host idles for 16 s while the child waits; it runs
  // in a process of its own, so other test files' leak checks never see its child.
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...FROZEN_RUN_FLAGS,
      "--allow-all",
      join(REPO_ROOT, "tests/fixtures/idle_host.ts"),
    ],
    cwd: REPO_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(out.success, "the host exited cleanly");
  const report = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
  assert.deepEqual(report, {
    guard: hasSetpriv() ? "pdeathsig" : "none",
    status: "completed",
    result: "alive",
  });
});
