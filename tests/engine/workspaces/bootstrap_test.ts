import assert from "node:assert/strict";
import {
  createRuntime,
  type ExecuteResult,
  type PreparedRecord,
  type Runtime,
  type WorkspaceBootstrapSpec,
  workspaceInitHook,
  type WorkspaceReport,
} from "./_imports.ts";
import { denoRunner } from "../../_helpers/deno_runner.ts";

async function open(): Promise<{ rt: Runtime; runner: ReturnType<typeof denoRunner> }> {
  const late: { rt?: Runtime } = {};
  const runner = denoRunner(() => late.rt!);
  const rt = late.rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    workspaces: { runner },
  });
  return { rt, runner };
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

const report = (r: ExecuteResult) => (r as { workspace?: WorkspaceReport }).workspace!;

/** A setup script: appends a line to work/setup.log and writes work/env/ready. */
const SETUP = `
  const old = await workspace.readText("work/setup.log").catch(() => "");
  await workspace.writeText("work/setup.log", old + input.args.join(" ") + "\\n");
  await workspace.writeText("work/env/ready", "yes");
  return 0;`;

const spec = (extra: Record<string, unknown> = {}): WorkspaceBootstrapSpec => ({
  files: [
    { target: "tools/setup.ts", content: SETUP },
    { target: "requirements.txt", content: "pkg==1" },
  ],
  commands: [{
    key: "install",
    cmd: "deno",
    args: ["tools/setup.ts", "install"],
    markerPath: "work/.installed",
    fingerprintInputs: ["requirements.txt"],
    ...extra,
  }],
});

const setupLog = `return (await workspace.readText("work/setup.log")).trim().split("\\n").length`;

Deno.test("bootstrap: files then commands, fingerprinted; skipped when done, re-run when a sentinel goes", async () => {
  const { rt, runner } = await open();
  await using _ = rt;
  const first = await rt.execute({
    workspace: { persist: true, bootstrap: spec() },
    code: setupLog,
  });
  assert.equal(ok(first), 1);
  assert.equal(report(first).bootstrapped, true);
  assert.equal(runner.runs, 1);
  const id = report(first).id;
  // Unchanged and the marker holds: skipped.
  const second = await rt.execute({ workspace: { id, bootstrap: spec() }, code: setupLog });
  assert.equal(ok(second), 1);
  assert.equal(report(second).bootstrapped, false);
  assert.equal(runner.runs, 1);
  // The marker removed: the command runs again (self-healing), and re-creates the marker.
  const healed = await rt.execute({
    workspace: { id, bootstrap: spec() },
    code: `await Deno.remove(workspace.dir + "/work/.installed"); return 0`,
  });
  ok(healed);
  const third = await rt.execute({
    workspace: { id, bootstrap: spec() },
    code: `await Deno.stat(workspace.dir + "/work/.installed"); ${setupLog}`,
  });
  assert.equal(ok(third), 2);
  assert.equal(runner.runs, 2);
  // A fingerprint input changed: it runs again; so does a new salt.
  await rt.execute({
    workspace: { id },
    code: `await workspace.writeText("requirements.txt", "pkg==2"); return 0`,
  });
  const changedSpec = spec();
  changedSpec.files = changedSpec.files!.slice(0, 1);
  const fourth = await rt.execute({ workspace: { id, bootstrap: changedSpec }, code: setupLog });
  assert.equal(ok(fourth), 3);
  const salted = await rt.execute({
    workspace: { id, bootstrap: spec({ fingerprintSalt: "v2" }) },
    code: setupLog,
  });
  // The salt forces the command. requirements.txt's file step is skipped (its fingerprint is
  // unchanged and its target exists: an edit on disk is not watched), so it stays pkg==2.
  assert.equal(ok(salted), 4);
  // A removed bootstrap file is staged again.
  await rt.execute({
    workspace: { id },
    code: `await Deno.remove(workspace.dir + "/tools/setup.ts"); return 0`,
  });
  const restaged = await rt.execute({
    workspace: { id, bootstrap: spec({ fingerprintSalt: "v2" }) },
    code: `return [await workspace.readText("tools/setup.ts") === ${JSON.stringify(SETUP)},
      JSON.parse(await workspace.readText("metadata.json")).prepared]`,
  });
  const [same, prepared] = ok(restaged) as [boolean, Record<string, PreparedRecord>];
  assert.equal(same, true);
  assert.deepEqual(Object.keys(prepared).sort(), [
    "file:requirements.txt",
    "file:tools/setup.ts",
    "install",
  ]);
  assert.equal(prepared.install.kind, "command");
  assert.equal(prepared.install.target, "work/.installed");
  assert.match(prepared.install.fingerprint, /^[0-9a-f]{64}$/);
  // The file step re-ran; the command's fingerprint and marker hold, so it did not.
  assert.equal(runner.runs, 4);
});

Deno.test("bootstrap: observed paths are sentinels; without any, the fingerprint alone decides", async () => {
  const { rt, runner } = await open();
  await using _ = rt;
  const observed = spec({ markerPath: undefined, observedPaths: ["work/env/ready"] });
  const first = await rt.execute({
    workspace: { persist: true, bootstrap: observed },
    code: setupLog,
  });
  const id = report(first).id;
  await rt.execute({ workspace: { id, bootstrap: observed }, code: "return 0" });
  assert.equal(runner.runs, 1);
  await rt.execute({
    workspace: { id },
    code: `await Deno.remove(workspace.dir + "/work/env/ready"); return 0`,
  });
  await rt.execute({ workspace: { id, bootstrap: observed }, code: "return 0" });
  assert.equal(runner.runs, 2);
  const plain = spec({ markerPath: undefined, key: "plain" });
  await rt.execute({ workspace: { id, bootstrap: plain }, code: "return 0" });
  await rt.execute({
    workspace: { id },
    code: `await Deno.remove(workspace.dir + "/work/env/ready"); return 0`,
  });
  await rt.execute({ workspace: { id, bootstrap: plain }, code: "return 0" });
  assert.equal(runner.runs, 3);
});

Deno.test("bootstrap: an optional step's failure is a warning; a required one fails, naming its key", async () => {
  const { rt } = await open();
  await using _ = rt;
  const failing: WorkspaceBootstrapSpec = {
    files: [
      { target: "fail.ts", content: "throw new Error('boom')" },
      { target: "x.txt", input: { from: "artifact://missing" }, optional: true },
    ],
    commands: [
      { key: "lint", cmd: "deno", args: ["fail.ts"], optional: true },
      { key: "exit3", cmd: "deno", args: ["three.ts"], optional: true },
    ],
  };
  failing.files!.push({ target: "three.ts", content: "return 3" });
  const r = await rt.execute({ workspace: { bootstrap: failing }, code: "return 'ran'" });
  assert.equal(ok(r), "ran");
  const warnings = report(r).warnings!;
  assert.equal(warnings.length, 3);
  assert.match(warnings[0], /file file:x\.txt.*no such artifact/);
  assert.match(warnings[1], /command lint.*exited with code 1.*boom/);
  assert.match(warnings[2], /command exit3.*exited with code 3/);
  failing.commands![1].optional = false;
  const bad = await rt.execute({ workspace: { bootstrap: failing }, code: "return 'ran'" });
  const error = (bad as { error?: { code: string; message: string; details?: { key: string } } })
    .error!;
  assert.equal(error.code, "script_error");
  assert.equal(error.details?.key, "exit3");
  assert.match(error.message, /exit3/);
  // A command stopped at its timeout fails as timed out.
  const slow = await rt.execute({
    workspace: {
      bootstrap: {
        files: [{ target: "spin.ts", content: "while (true) {}" }],
        commands: [{ key: "spin", cmd: "deno", args: ["spin.ts"], timeoutMs: 500 }],
      },
    },
    code: "return 'ran'",
  });
  const timedOut = (slow as { error?: { message: string; details?: Record<string, unknown> } })
    .error!;
  assert.deepEqual(timedOut.details, { key: "spin", exitCode: 1, timedOut: true });
  assert.match(timedOut.message, /spin timed out/);
  // A command with no runner, and hostile steps, are refused.
  await using plain = await createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off" });
  const none = await plain.execute({
    workspace: { bootstrap: { commands: [{ cmd: "deno", args: ["x.ts"] }] } },
    code: "return 1",
  });
  assert.equal((none as { error?: { code: string } }).error?.code, "not_supported");
  for (
    const b of [
      { files: [{ target: "../x", content: "x" }] },
      { commands: [{ cmd: "deno", cwd: "../.." }] },
      { commands: [{ cmd: "deno", markerPath: "/etc/x" }] },
      { commands: [{ cmd: "deno", fingerprintInputs: ["../../etc/passwd"] }] },
      { commands: [{ cmd: "" }] },
      { files: [{ target: "a" }] },
    ]
  ) {
    const r = await rt.execute({ workspace: { bootstrap: b } as never, code: "return 1" });
    assert.equal(
      (r as { error?: { code: string } }).error?.code,
      "invalid_request",
      JSON.stringify(b),
    );
  }
});

Deno.test("init hooks run once in order after creation; 20 concurrent acquires create one workspace", async () => {
  const { WorkspaceRegistry } = await import("./_imports.ts");
  const order: string[] = [];
  const late: { rt?: Runtime } = {};
  const runner = denoRunner(() => late.rt!);
  const rt = late.rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    workspaces: {
      runner,
      initHooks: [
        async ({ workspace }) => {
          order.push("first");
          await Deno.writeTextFile(`${workspace.dir}/hook.ts`, SETUP);
        },
        workspaceInitHook({
          commands: [{ name: "setup", cmd: "deno", args: ["hook.ts", "init"] }],
        }),
        () => {
          order.push("third");
        },
      ],
    },
  });
  await using _ = rt;
  const created = await rt.execute({ workspace: { persist: true }, code: setupLog });
  assert.equal(ok(created), 1);
  assert.deepEqual(order, ["first", "third"]);
  assert.equal(runner.runs, 1);
  // Reopened: no hook runs.
  await rt.execute({ workspace: { id: report(created).id }, code: "return 0" });
  assert.deepEqual(order, ["first", "third"]);
  const registry = new WorkspaceRegistry(async (_key: string) => {
    const r = await rt!.execute({ workspace: { persist: true }, code: "return 0" });
    return report(r).id;
  });
  const ids = await Promise.all(Array.from({ length: 20 }, () => registry.acquire("session-1")));
  assert.equal(new Set(ids).size, 1);
  assert.deepEqual(order, ["first", "third", "first", "third"]);
  assert.equal(runner.runs, 2);
  assert.deepEqual(registry.ids(), ["session-1"]);
  // A failing hook labels its index and leaves nothing behind.
  await using failing = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    workspaces: { initHooks: [() => {}, () => Promise.reject(new Error("nope"))] },
  });
  const r = await failing.execute({ workspace: {}, code: "return 1" });
  const error = (r as { error?: { code: string; message: string } }).error!;
  assert.match(error.message, /init hook 1: nope/);
  let failures = 0;
  const flaky = new WorkspaceRegistry(() =>
    failures++ === 0 ? Promise.reject(new Error("x")) : Promise.resolve(7)
  );
  await assert.rejects(flaky.acquire("a"));
  assert.equal(await flaky.acquire("a"), 7);
});
