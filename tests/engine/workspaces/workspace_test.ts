import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, type ExecuteResult, type Runtime } from "../../../mod.ts";
import { MAX_GLOB_CHARS, MAX_OUTPUT_GLOBS } from "../../../src/engine/workspaces/workspace.ts";
import { STALL_BOUND_MS, withLag } from "../../_helpers/lag.ts";

function open(): Promise<Runtime> {
  return createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off" });
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

function code(r: ExecuteResult): string {
  assert.notEqual(r.status, "completed", Deno.inspect(r).slice(0, 400));
  return (r as { error: { code: string } }).error.code;
}

const exists = (p: string) => Deno.lstat(p).then(() => true, () => false);

Deno.test("workspace: read and write inside; outside, .., /proc and new symlinks are refused", async () => {
  await using rt = await open();
  const r = await rt.execute({
    workspace: { files: { "in.txt": "hello" } },
    code: `
      const attempt = async (f: () => Promise<unknown>) => {
        try { await f(); return "allowed"; } catch (e) { return (e as Error).name; }
      };
      await workspace.writeText("deep/out.txt", (await workspace.readText("in.txt")) + "!");
      return {
        inside: await workspace.readText("deep/out.txt"),
        outside: await attempt(() => Deno.readTextFile("/etc/passwd")),
        dotdot: await attempt(() => Deno.readTextFile(workspace.dir + "/../../../etc/passwd")),
        writeOut: await attempt(() => Deno.writeTextFile(workspace.dir + "/../escape.txt", "x")),
        proc: await attempt(() => Deno.readTextFile("/proc/self/environ")),
        symlink: await attempt(() => Deno.symlink("/etc/passwd", workspace.dir + "/link")),
        hardlink: await attempt(() => Deno.link("/etc/passwd", workspace.dir + "/hard")),
        helper: await attempt(async () => workspace.path("../x")),
      };`,
  });
  assert.deepEqual(ok(r), {
    inside: "hello!",
    outside: "NotCapable",
    dotdot: "NotCapable",
    writeOut: "NotCapable",
    proc: "NotCapable",
    symlink: "NotCapable",
    hardlink: "NotCapable",
    helper: "TypeError",
  });
  // Without a workspace there is no file access at all, and no workspace global.
  const none = await rt.execute({
    code:
      "try { for await (const _ of Deno.readDir('/tmp')) break; return 'read' } catch (e) { return [e.name, typeof workspace] }",
  });
  assert.deepEqual(ok(none), ["NotCapable", "undefined"]);
});

Deno.test("workspace: a staged directory with a symlink is refused and nothing is left", async () => {
  await using rt = await open();
  const host = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(host, "ok.txt"), "fine");
    await Deno.symlink("/etc/passwd", join(host, "passwd"));
    const before = await countWorkspaces();
    const r = await rt.execute({
      code: "return 1",
      workspace: { stage: [{ from: host, to: "data" }] },
    });
    assert.equal(code(r), "invalid_request");
    assert.match((r as { error: { message: string } }).error.message, /symlink/);
    assert.equal(await countWorkspaces(), before, "the half-staged workspace was removed");
    assert.equal((await rt.executions()).items.length, 0, "no execution was recorded");
    await Deno.remove(join(host, "passwd"));
    const staged = await rt.execute({
      code: "return await workspace.readText('data/ok.txt')",
      workspace: { stage: [{ from: host, to: "data" }] },
    });
    assert.equal(ok(staged), "fine");
  } finally {
    await Deno.remove(host, { recursive: true });
  }
});

async function countWorkspaces(): Promise<number> {
  let n = 0;
  try {
    for await (const e of Deno.readDir(join(tmpdir(), "cordon", "workspaces"))) {
      if (e.isDirectory) n++;
    }
  } catch { /* none yet */ }
  return n;
}

Deno.test("workspace: artifacts in, outputs out as new artifact versions, by glob", async () => {
  await using rt = await open();
  await rt.saveArtifact({ name: "data/in.csv", data: "n\n1\n2\n3\n" });
  const script = `
    const rows = (await workspace.readText("in.csv")).trim().split("\\n").slice(1).map(Number);
    await workspace.writeText("out/sum.txt", String(rows.reduce((a, b) => a + b, 0)));
    await workspace.writeText("out/nested/rows.json", JSON.stringify(rows));
    await workspace.writeText("scratch.tmp", "not collected");
    return rows.length;`;
  const spec = {
    inputs: { "in.csv": "artifact://data/in.csv@1" },
    outputs: { globs: ["out/**"], saveAs: { prefix: "results/" } },
  };
  const first = await rt.execute({ code: script, workspace: spec });
  assert.equal(ok(first), 3);
  const report = (first as { workspace?: { outputs: { path: string; ref?: string }[] } })
    .workspace!;
  assert.deepEqual(report.outputs.map((o) => [o.path, o.ref]), [
    ["out/nested/rows.json", "results/out/nested/rows.json@1"],
    ["out/sum.txt", "results/out/sum.txt@1"],
  ]);
  const sum = await rt.artifact("results/out/sum.txt");
  assert.equal(new TextDecoder().decode(sum!.data), "6");
  const second = await rt.execute({ code: script, workspace: spec });
  const refs = (second as { workspace?: { outputs: { ref?: string }[] } }).workspace!.outputs;
  assert.equal(refs[1].ref, "results/out/sum.txt@2");
  const missing = await rt.execute({
    code: "return 1",
    workspace: { inputs: { "x": "artifact://nope" } },
  });
  assert.equal(code(missing), "not_found");
});

Deno.test("workspace: output bounds are reported as limitsHit", async () => {
  await using rt = await open();
  const r = await rt.execute({
    code:
      `for (let i = 0; i < 5; i++) await workspace.writeText("o/f" + i + ".txt", "x".repeat(100));
      await workspace.writeText("o/big.txt", "y".repeat(5000));
      return 1;`,
    workspace: { outputs: { globs: ["o/*.txt"], maxFiles: 3, maxFileBytes: 1000 } },
  });
  const report = (r as { workspace?: { outputs: { path: string }[]; limitsHit: string[] } })
    .workspace!;
  assert.deepEqual(report.outputs.map((o) => o.path), ["o/f0.txt", "o/f1.txt", "o/f2.txt"]);
  assert.deepEqual(report.limitsHit.sort(), ["maxFileBytes", "maxFiles"]);
});

Deno.test("workspace: persisted, bootstrapped once, reused by id and by workspace:// inputs", async () => {
  await using rt = await open();
  const boot = { "setup/config.json": '{"v":1}' };
  const first = await rt.execute({
    code:
      "await workspace.writeText('state.txt', 'kept'); return await workspace.readText('setup/config.json')",
    workspace: { persist: true, bootstrap: boot },
  });
  assert.equal(ok(first), '{"v":1}');
  const ws = (first as { workspace?: { id: string; bootstrapped?: boolean } }).workspace!;
  assert.equal(ws.bootstrapped, true);
  const again = await rt.execute({
    code: "return await workspace.readText('state.txt')",
    workspace: { id: ws.id, bootstrap: boot },
  });
  assert.equal(ok(again), "kept");
  assert.equal(
    (again as { workspace?: { bootstrapped?: boolean } }).workspace!.bootstrapped,
    false,
  );
  const changed = await rt.execute({
    code: "return await workspace.readText('setup/config.json')",
    workspace: { id: ws.id, bootstrap: { "setup/config.json": '{"v":2}' } },
  });
  assert.equal(ok(changed), '{"v":2}');
  const copied = await rt.execute({
    code: "return await workspace.readText('from-other.txt')",
    workspace: { inputs: { "from-other.txt": `workspace://${ws.id}/state.txt` } },
  });
  assert.equal(ok(copied), "kept");
  const foreign = await rt.execute({
    code: "return 1",
    namespace: "other",
    workspace: { id: ws.id },
  });
  assert.equal(code(foreign), "not_found");
  const dir = join(tmpdir(), "cordon", "workspaces", ws.id);
  assert.equal(await exists(dir), true, "a persisted workspace stays");
  // A symlink planted in a kept workspace (from the host) stops it from being opened.
  await Deno.symlink("/etc/passwd", join(dir, "planted"));
  const planted = await rt.execute({
    code: "return await workspace.readText('planted')",
    workspace: { id: ws.id },
  });
  assert.equal(code(planted), "invalid_request");
  assert.match((planted as { error: { message: string } }).error.message, /symlink/);
  await Deno.remove(join(dir, "planted"));
  const temp = await rt.execute({ code: "return workspace.dir", workspace: {} });
  assert.equal(
    await exists(ok(temp) as string),
    false,
    "a plain workspace is removed after the run",
  );
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(`${dir}.json`);
});

Deno.test("workspace: a run that writes past its quota is stopped", async () => {
  await using rt = await open();
  const r = await rt.execute({
    code: `for (let i = 0; i < 200; i++) {
        await workspace.writeBytes("f" + i, new Uint8Array(64 * 1024));
        await new Promise((r) => setTimeout(r, 5));
      }
      return "wrote it all";`,
    workspace: { quotaBytes: 1024 * 1024 },
  });
  assert.equal(code(r), "limit_exceeded");
});

Deno.test("workspace: a hostile output glob is matched without stalling the host", async () => {
  await using rt = await open();
  // As a RegExp this glob froze the host 4-18 s against a 40-character name.
  const { value: r, lagMs } = await withLag(() =>
    rt.execute({
      code: `await workspace.writeText("${"a".repeat(40)}", "x");
        await workspace.writeText("${"a".repeat(39)}b", "y");
        return "written";`,
      workspace: { outputs: { globs: ["*a*a*a*a*a*a*a*a*b", "x*"] } },
    })
  );
  assert.equal(ok(r), "written");
  const report = (r as { workspace?: { outputs: { path: string }[] } }).workspace!;
  assert.deepEqual(report.outputs.map((o) => o.path), [`${"a".repeat(39)}b`]);
  assert.ok(lagMs < STALL_BOUND_MS, `the event loop stalled ${Math.round(lagMs)} ms`);
});

Deno.test("workspace: bad requests are refused before anything is written", async () => {
  await using rt = await open();
  for (
    const workspace of [
      { files: { "../escape.txt": "x" } },
      { files: { "/abs.txt": "x" } },
      { inputs: { "a": "https://example.com/x" } },
      { outputs: { globs: ["../**"] } },
      { outputs: { globs: ["a".repeat(MAX_GLOB_CHARS + 1)] } },
      { outputs: { globs: Array.from({ length: MAX_OUTPUT_GLOBS + 1 }, (_, i) => `f${i}`) } },
      { id: "ws_nope" },
      { quotaBytes: -1 },
    ]
  ) {
    const r = await rt.execute({ code: "return 1", workspace: workspace as never });
    assert.equal(code(r), "invalid_request", JSON.stringify(workspace));
  }
  assert.equal((await rt.executions()).items.length, 0);
});

Deno.test("workspace: a session's executions share its workspace, removed when it ends", async () => {
  await using rt = await open();
  const first = await rt.execute({
    session: true,
    code: "await workspace.writeText('notes.txt', 'one'); let count = 1; return workspace.dir",
    workspace: { files: { "seed.txt": "seed" } },
  });
  const dir = ok(first) as string;
  const sessionId = first.meta.sessionId!;
  const second = await rt.execute({
    sessionId,
    code: `count++; await workspace.writeText("out/n.txt", String(count));
      return [await workspace.readText("notes.txt"), await workspace.readText("seed.txt"), count]`,
    workspace: { outputs: { globs: ["out/*"] } },
  });
  assert.deepEqual(ok(second), ["one", "seed", 2]);
  assert.deepEqual(
    (second as { workspace?: { outputs: { path: string }[] } }).workspace!.outputs.map((o) =>
      o.path
    ),
    ["out/n.txt"],
  );
  assert.equal(await exists(dir), true, "kept while the session lives");
  const refused = await rt.execute({
    sessionId,
    code: "return 1",
    workspace: { files: { "x": "y" } },
  });
  assert.equal(code(refused), "invalid_request");
  assert.equal(await rt.closeSession(sessionId), true);
  assert.equal(await exists(dir), false, "removed with the session");
});

Deno.test("sweepWorkspaces() removes kept workspaces unused past retention, and keeps the rest", async () => {
  const { prepareWorkspace, sweepWorkspaces } = await import(
    "../../../src/engine/workspaces/workspace.ts"
  );
  const root = await Deno.makeTempDir();
  try {
    const host = {
      root,
      namespace: "default",
      artifact: () => Promise.resolve(undefined),
      saveArtifact: () => Promise.reject(new Error("unused")),
    };
    const old = await prepareWorkspace({ persist: true, files: { "a": "1" } }, host);
    const fresh = await prepareWorkspace({ persist: true, files: { "b": "2" } }, host);
    const longAgo = new Date(Date.now() - 10 * 24 * 60 * 60_000);
    await Deno.utime(join(root, `${old.id}.json`), longAgo, longAgo);
    assert.deepEqual(await sweepWorkspaces(root, 7 * 24 * 60 * 60_000), [old.id]);
    assert.equal(await exists(old.dir), false);
    assert.equal(await exists(fresh.dir), true);
    // Opening a kept workspace counts as using it.
    await Deno.utime(join(root, `${fresh.id}.json`), longAgo, longAgo);
    await prepareWorkspace({ id: fresh.id }, host);
    assert.deepEqual(await sweepWorkspaces(root, 7 * 24 * 60 * 60_000), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
