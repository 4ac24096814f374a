import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { CordonError, createRuntime, type Runtime, withRunEnv } from "../../../mod.ts";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);

const SLOW = { timeoutMs: 60_000 };

async function withRuntime(
  fn: (rt: Runtime, ctx: { hostRoot: string; outside: string; inits: string[] }) => Promise<void>,
): Promise<void> {
  const dataDir = await Deno.makeTempDir();
  const hostRoot = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  const inits: string[] = [];
  const rt = await createRuntime({
    db: ":memory:",
    dataDir,
    pool: { size: 0 },
    workspaces: { hostRoots: [hostRoot], initHooks: [(env) => void inits.push(env.workspace.id)] },
    runEnv: () => ({ RUNTIME_VAR: "runtime", B: "runtime" }),
  });
  try {
    await fn(rt, { hostRoot, outside, inits });
  } finally {
    await rt.close();
    for (const d of [dataDir, hostRoot, outside]) {
      await Deno.remove(d, { recursive: true }).catch(() => {});
    }
  }
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e) => e instanceof CordonError && e.code === code);
}

const exists = (p: string) => Deno.lstat(p).then(() => true, () => false);

Deno.test({
  name:
    "workspaceEngine: create, putFiles, a Python program reads the data and writes out/, collect, collectOutputs with save, cleanup",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt, { inits }) => {
      const eng = rt.workspaceEngine();
      assert.deepEqual(eng.describe(), rt.capabilities().workspace);
      const ws = await eng.manager.createWorkspace("exec-1", { maxDiskBytes: 1_000_000 });
      assert.match(ws.id, /^ws_[0-9a-f]{32}$/);
      for (const d of ["skills", "work", "runs", "out"]) {
        assert.ok((await Deno.lstat(join(ws.path, d))).isDirectory, d);
      }
      assert.ok(await exists(join(ws.path, "metadata.json")));
      assert.deepEqual(inits, [ws.id]);
      const script = [
        "import os",
        "root = os.environ['WORKSPACE_DIR']",
        "nums = [int(x) for x in open(os.path.join(root, 'work/data.txt')).read().split()]",
        "open(os.path.join(os.environ['OUTPUT_DIR'], 'x.txt'), 'w').write(f'sum={sum(nums)}\\n')",
        "print('done', len(nums))",
      ].join("\n");
      await eng.fs.putFiles(ws, [
        { path: "main.py", content: script, mode: 0o755 },
        { path: "work/data.txt", content: new TextEncoder().encode("1 2 3 4\n") },
      ]);
      assert.equal((await Deno.stat(join(ws.path, "main.py"))).mode! & 0o777, 0o755);
      assert.equal((await Deno.stat(join(ws.path, "work/data.txt"))).mode! & 0o777, 0o644);
      const r = await eng.runner.runProgram(ws, { cmd: "python3", args: ["main.py"], ...SLOW });
      assert.deepEqual([r.stdout, r.stderr, r.exitCode, r.timedOut], ["done 4\n", "", 0, false]);
      assert.equal(r.workspaceId, ws.id);
      const files = await eng.fs.collect(ws, ["$OUTPUT_DIR/*"]);
      assert.deepEqual(files, [{
        name: "out/x.txt",
        content: "sum=10\n",
        mimeType: "text/plain; charset=utf-8",
        sizeBytes: 7,
        truncated: false,
      }]);
      const manifest = await eng.fs.collectOutputs(ws, { globs: ["$OUTPUT_DIR/**"], save: true });
      assert.equal(manifest.limitsHit, false);
      assert.deepEqual(
        manifest.files.map((f) => [f.name, f.savedAs, f.version]),
        [["out/x.txt", "out/x.txt", 1]],
      );
      const saved = await rt.artifact("artifact://out/x.txt");
      assert.equal(new TextDecoder().decode(saved!.data), "sum=10\n");
      const md = JSON.parse(await Deno.readTextFile(join(ws.path, "metadata.json")));
      assert.deepEqual(md.outputs.at(-1).saved_as, ["out/x.txt"]);
      // The quota is the policy's: more than a megabyte is refused, nothing written.
      await rejectsWith(
        eng.fs.putFiles(ws, [{ path: "big.bin", content: new Uint8Array(1_000_001) }]),
        "limit_exceeded",
      );
      assert.equal(await exists(join(ws.path, "big.bin")), false);
      await eng.manager.cleanup(ws);
      assert.equal(await exists(ws.path), false);
      await eng.manager.cleanup(ws); // idempotent
      await rejectsWith(eng.fs.putFiles(ws, [{ path: "a", content: "" }]), "not_found");
    }),
});

Deno.test({
  name:
    "workspaceEngine: persist keeps it on cleanup; another namespace gets not_found; hostile paths and symlinks are refused",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt) => {
      const mine = rt.workspaceEngine({ namespace: "team-a" });
      const theirs = rt.workspaceEngine({ namespace: "team-b" });
      const ws = await mine.manager.createWorkspace("e", { persist: true });
      await mine.manager.cleanup(ws);
      assert.ok(await exists(ws.path), "a persisted workspace stays after cleanup");
      await rejectsWith(theirs.manager.cleanup(ws), "not_found");
      await rejectsWith(theirs.fs.putFiles(ws, [{ path: "a.txt", content: "x" }]), "not_found");
      await rejectsWith(theirs.fs.collect(ws, ["**"]), "not_found");
      await rejectsWith(
        theirs.runner.runProgram(ws, { cmd: "bash", args: ["-c", "echo hi"] }),
        "not_found",
      );
      await rejectsWith(
        theirs.runner.startProgram(ws, { cmd: "bash", args: ["-c", "echo hi"] }),
        "not_found",
      );
      await rejectsWith(
        mine.manager.cleanup({ id: "ws_" + "0".repeat(32), path: "/tmp" }),
        "not_found",
      );
      assert.ok(await exists(ws.path));
      for (const path of ["../x", "/etc/passwd", "work/../../x", "", "."]) {
        await rejectsWith(mine.fs.putFiles(ws, [{ path, content: "x" }]), "invalid_request");
      }
      await rejectsWith(
        mine.fs.putFiles(ws, [{ path: "ok.txt", content: "x", mode: 0o4755 }]),
        "invalid_request",
      );
      // Malformed calls are typed errors too.
      const odd = [
        () => mine.fs.putFiles(ws, [{ path: "x".repeat(300), content: "x" }]),
        () => mine.fs.putFiles(ws, "nope" as never),
        () => mine.fs.putFiles(ws, [{ path: "n.txt", content: 42 as never }]),
        () => mine.fs.stageInputs(ws, "x" as never),
        () => mine.fs.collectOutputs(ws, null as never),
        () => mine.fs.collect(ws, ["../*"]),
        () => mine.manager.createWorkspace(7 as never),
      ];
      for (const call of odd) await rejectsWith(call(), "invalid_request");
      // A symlink in the workspace (none of Cordon's making) is never written through.
      const outside = await Deno.makeTempDir();
      try {
        await Deno.symlink(outside, join(ws.path, "work/link"));
        await rejectsWith(
          mine.fs.putFiles(ws, [{ path: "work/link/evil.txt", content: "x" }]),
          "invalid_request",
        );
        assert.deepEqual(await Array.fromAsync(Deno.readDir(outside)), []);
      } finally {
        await Deno.remove(outside, { recursive: true });
      }
      await rejectsWith(mine.manager.createWorkspace("e", { maxDiskBytes: -1 }), "invalid_request");
      assert.throws(() => rt.workspaceEngine({ namespace: "../x" }), CordonError);
      // Kept workspaces go with the retention sweep; this test's own goes now.
      await Deno.remove(ws.path, { recursive: true });
      await Deno.remove(`${ws.path}.json`);
    }),
});

Deno.test({
  name:
    "workspaceEngine: stageDirectory copies from hostRoots only (policy_denied outside), read-only when asked",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt, { hostRoot, outside }) => {
      const eng = rt.workspaceEngine();
      const ws = await eng.manager.createWorkspace("stage");
      await Deno.mkdir(join(hostRoot, "tree/sub"), { recursive: true });
      await Deno.writeTextFile(join(hostRoot, "tree/a.txt"), "A");
      await Deno.writeTextFile(join(hostRoot, "tree/sub/b.txt"), "B");
      await Deno.writeTextFile(join(outside, "secret.txt"), "S");
      await rejectsWith(eng.fs.stageDirectory(ws, outside, "x"), "policy_denied");
      await rejectsWith(eng.fs.stageDirectory(ws, "/etc", "x"), "policy_denied");
      await rejectsWith(
        eng.fs.stageDirectory(ws, join(hostRoot, "tree"), "../x"),
        "invalid_request",
      );
      // A symlink inside a root that points out is resolved and refused.
      await Deno.symlink(outside, join(hostRoot, "escape"));
      await rejectsWith(eng.fs.stageDirectory(ws, join(hostRoot, "escape"), "x"), "policy_denied");
      const report = await eng.fs.stageDirectory(ws, join(hostRoot, "tree"), "work/tree", {
        readOnly: true,
        allowMount: true,
      });
      assert.deepEqual(report, { files: 2, mountUsed: false, readOnly: true });
      assert.equal(await Deno.readTextFile(join(ws.path, "work/tree/sub/b.txt")), "B");
      assert.equal((await Deno.stat(join(ws.path, "work/tree/a.txt"))).mode! & 0o222, 0);
      assert.equal((await Deno.stat(join(ws.path, "work/tree/sub"))).mode! & 0o222, 0);
      const md = JSON.parse(await Deno.readTextFile(join(ws.path, "metadata.json")));
      assert.equal(md.inputs.at(-1).to, "work/tree");
      const files = await eng.fs.collect(ws, ["${WORK_DIR}/tree/**"]);
      assert.deepEqual(files.map((f) => [f.name, f.content]), [
        ["work/tree/a.txt", "A"],
        ["work/tree/sub/b.txt", "B"],
      ]);
      await eng.fs.stageInputs(ws, [{ from: `host://${hostRoot}/tree/a.txt`, to: "work/a2.txt" }]);
      assert.equal(await Deno.readTextFile(join(ws.path, "work/a2.txt")), "A");
      await rejectsWith(
        eng.fs.stageInputs(ws, [{ from: `host://${outside}/secret.txt` }]),
        "policy_denied",
      );
      // Read-only trees are still removed by cleanup.
      await eng.manager.cleanup(ws);
      assert.equal(await exists(ws.path), false);
    }),
});

Deno.test({
  name:
    "workspaceEngine: ten concurrent acquires make one workspace; withRunEnv merges under the spec's env",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt, { inits }) => {
      // The workspaces folder is the host's: a namespace of this run's own tells its records.
      const ns = `reg-${crypto.randomUUID().slice(0, 8)}`;
      const eng = rt.workspaceEngine({ namespace: ns });
      const got = await Promise.all(
        Array.from({ length: 10 }, () => eng.registry.acquire("session-1")),
      );
      assert.equal(new Set(got.map((w) => w.id)).size, 1);
      assert.equal(inits.length, 1);
      const root = dirname(got[0].path);
      const owned = [];
      for await (const e of Deno.readDir(root)) {
        if (!e.isFile || !e.name.endsWith(".json")) continue;
        const rec = JSON.parse(await Deno.readTextFile(join(root, e.name)).catch(() => "{}"));
        if (rec.namespace === ns) owned.push(e.name);
      }
      assert.deepEqual(owned, [`${got[0].id}.json`]);
      // Engines of one namespace share the registry.
      assert.equal(
        (await rt.workspaceEngine({ namespace: ns }).registry.acquire("session-1")).id,
        got[0].id,
      );
      const env = withRunEnv(eng, ({ workspaceId }) => ({
        A: "provider",
        B: "provider",
        C: String(workspaceId === got[0].id),
      }));
      const r = await env.runner.runProgram(got[0], {
        cmd: "bash",
        args: ["-c", 'echo "$A $B $C $RUNTIME_VAR"'],
        env: { B: "spec" },
        ...SLOW,
      });
      assert.deepEqual([r.stdout, r.exitCode], ["provider spec true runtime\n", 0]);
      const viaOption = rt.workspaceEngine({ namespace: ns, runEnv: () => ({ B: "option" }) });
      const s = await viaOption.runner.startProgram(got[0], {
        cmd: "bash",
        args: ["-c", 'echo "$B"'],
        ...SLOW,
      });
      const done = await s.done;
      assert.deepEqual([done.stdout, done.exitCode], ["option\n", 0]);
      await s.close();
      // A run is held to the policy's quota too.
      const small = await eng.manager.createWorkspace("quota", { maxDiskBytes: 2000 });
      const over = await eng.runner.runProgram(small, {
        cmd: "bash",
        args: [
          "-c",
          "for i in $(seq 1 100); do echo 0123456789012345678901234567890 >> out/b; done",
        ],
        ...SLOW,
      });
      assert.equal(over.exitCode, 1);
      assert.match(over.stderr, /limit_exceeded: .*over its 2000-byte quota/);
      await eng.manager.cleanup(small);
      await eng.manager.cleanup(got[0]);
      assert.equal(await exists(got[0].path), false);
    }),
});

Deno.test({
  name: "workspaceEngine: spans named and keyed as the document says",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRuntime(async (rt, { hostRoot }) => {
      exporter.reset();
      const traceId = "0af7651916cd43dd8448eb211c80319c";
      const eng = rt.workspaceEngine({ traceparent: `00-${traceId}-b7ad6b7169203331-01` });
      const ws = await eng.manager.createWorkspace("exec-traced");
      await eng.fs.putFiles(ws, [{ path: "a.txt", content: "a" }, { path: "b.txt", content: "b" }]);
      await Deno.writeTextFile(join(hostRoot, "h.txt"), "h");
      await eng.fs.stageInputs(ws, [{ from: `host://${hostRoot}/h.txt`, to: "work/h2.txt" }]);
      await eng.fs.stageDirectory(ws, hostRoot, "work/h", { allowMount: true });
      await eng.fs.collect(ws, ["*.txt"]);
      const r = await eng.runner.runProgram(ws, { cmd: "bash", args: ["-c", "exit 4"], ...SLOW });
      assert.equal(r.exitCode, 4);
      await eng.manager.cleanup(ws);
      // Every span of the engine joins the caller's trace.
      const spans = exporter.getFinishedSpans()
        .filter((s) => s.name.startsWith("workspace."));
      assert.deepEqual(new Set(spans.map((s) => s.spanContext().traceId)), new Set([traceId]));
      const one = (name: string) => {
        const found = spans.filter((s) => s.name === name);
        assert.ok(found.length >= 1, `a ${name} span`);
        return found.at(-1)!.attributes;
      };
      // The first is the manager's; a run reopens the workspace in a span of its own.
      one("workspace.create");
      const creates = spans.filter((s) => s.name === "workspace.create");
      assert.equal(creates[0].attributes.exec_id, "exec-traced");
      assert.equal(one("workspace.stage.files").count, 2);
      const dir = one("workspace.stage.dir");
      assert.deepEqual([dir.to, dir.mount_used, dir.count], ["work/h", false, 1]);
      assert.deepEqual(one("workspace.collect").patterns, ["*.txt"]);
      const run = one("workspace.run");
      assert.deepEqual([run.cmd, run.exit_code, run.timed_out], ["bash", 4, false]);
      assert.equal(one("workspace.cleanup").path, ws.id);
    }),
});
