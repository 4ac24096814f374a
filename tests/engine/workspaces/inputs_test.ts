import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createRuntime,
  type ExecuteResult,
  type InputRecord,
  type Runtime,
  type RuntimeOptions,
  type SkillMeta,
  type WorkspaceReport,
} from "./_imports.ts";
import { dirDigest } from "../../../src/engine/workspaces/inputs.ts";

function open(workspaces?: RuntimeOptions["workspaces"]): Promise<Runtime> {
  return createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off", workspaces });
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

function code(r: ExecuteResult): string {
  assert.notEqual(r.status, "completed", Deno.inspect(r).slice(0, 400));
  return (r as { error: { code: string } }).error.code;
}

const report = (r: ExecuteResult) => (r as { workspace?: WorkspaceReport }).workspace!;
const readMeta = `return JSON.parse(await workspace.readText("metadata.json"))`;

Deno.test("inputs: artifact:// specs default to work/inputs/<name>, recorded; pin keeps the version", async () => {
  await using rt = await open();
  await rt.saveArtifact({ name: "data/in.csv", data: "v1" });
  const r = await rt.execute({
    workspace: { persist: true, inputs: [{ from: "artifact://data/in.csv", pin: true }] },
    code: `return [await workspace.readText("work/inputs/in.csv"), (${
      readMeta.replace("return ", "")
    }).inputs]`,
  });
  const [text, records] = ok(r) as [string, InputRecord[]];
  assert.equal(text, "v1");
  assert.equal(records.length, 1);
  const { ts, ...rest } = records[0];
  assert.ok(!Number.isNaN(Date.parse(ts)));
  assert.deepEqual(rest, {
    from: "artifact://data/in.csv",
    to: "work/inputs/in.csv",
    mode: "copy",
    pin: true,
    resolved: "data/in.csv@1",
    version: 1,
  });
  // A new version exists; the pinned input keeps staging version 1, an unpinned one takes 2.
  await rt.saveArtifact({ name: "data/in.csv", data: "v2" });
  const id = report(r).id;
  const again = await rt.execute({
    workspace: {
      id,
      inputs: [
        { from: "artifact://data/in.csv", pin: true },
        { from: "artifact://data/in.csv", to: "latest.csv" },
      ],
    },
    code:
      `return [await workspace.readText("work/inputs/in.csv"), await workspace.readText("latest.csv")]`,
  });
  assert.deepEqual(ok(again), ["v1", "v2"]);
  // The map form still works, and is recorded too.
  const legacy = await rt.execute({
    workspace: { id, inputs: { "m.csv": "artifact://data/in.csv@2" } },
    code: readMeta,
  });
  const last = (ok(legacy) as { inputs: InputRecord[] }).inputs.at(-1)!;
  assert.deepEqual([last.to, last.version], ["m.csv", 2]);
});

Deno.test("inputs: link mode stages a copy: never a symlink, never a hard link to the source", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(root, "f.txt"), "host");
    await using rt = await open({ hostRoots: [root] });
    const r = await rt.execute({
      workspace: {
        persist: true,
        inputs: [{ from: `host://${root}/f.txt`, to: "f.txt", mode: "link" }],
      },
      code: `const i = await Deno.lstat(workspace.dir + "/f.txt");
        await workspace.writeText("f.txt", "changed");
        return [i.isFile, i.isSymlink, i.ino, i.nlink]`,
    });
    const host = await Deno.lstat(join(root, "f.txt"));
    assert.deepEqual(ok(r), [true, false, (ok(r) as number[])[2], 1]);
    assert.notEqual((ok(r) as number[])[2], host.ino);
    assert.equal(await Deno.readTextFile(join(root, "f.txt")), "host");
    const back = await rt.execute({ workspace: { id: report(r).id }, code: readMeta });
    assert.equal((ok(back) as { inputs: InputRecord[] }).inputs[0].mode, "copy");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("inputs: host:// is refused by default, outside the allowed roots, and through a symlink", async () => {
  const root = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(root, "d/sub"), { recursive: true });
    await Deno.writeTextFile(join(root, "d/a.txt"), "A");
    await Deno.writeTextFile(join(root, "d/sub/b.txt"), "B");
    await Deno.writeTextFile(join(outside, "secret.txt"), "S");
    {
      await using rt = await open();
      const r = await rt.execute({
        workspace: { inputs: [{ from: `host://${root}/d` }] },
        code: "return 1",
      });
      assert.equal(code(r), "policy_denied");
    }
    await using rt = await open({ hostRoots: [root] });
    const r = await rt.execute({
      workspace: { inputs: [{ from: `host://${root}/d`, to: "data" }] },
      code:
        `return [await workspace.readText("data/a.txt"), await workspace.readText("data/sub/b.txt")]`,
    });
    assert.deepEqual(ok(r), ["A", "B"]);
    for (
      const from of [
        `host://${outside}/secret.txt`,
        `host://${root}/../${outside.split("/").pop()}`,
      ]
    ) {
      assert.match(
        code(await rt.execute({ workspace: { inputs: [{ from }] }, code: "return 1" })),
        /policy_denied|invalid_request/,
      );
    }
    // A symlink inside a root leading out: its real path is outside, refused.
    await Deno.symlink(outside, join(root, "link"));
    const viaLink = await rt.execute({
      workspace: { inputs: [{ from: `host://${root}/link/secret.txt` }] },
      code: "return 1",
    });
    assert.equal(code(viaLink), "policy_denied");
    // A symlink inside a staged tree is refused too (it would lead out of the workspace).
    await Deno.symlink(join(outside, "secret.txt"), join(root, "d/sub/s"));
    const tree = await rt.execute({
      workspace: { inputs: [{ from: `host://${root}/d` }] },
      code: "return 1",
    });
    assert.equal(code(tree), "invalid_request");
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("inputs: skill:// stages under skills/<name> with a SkillMeta and its DirDigest", async () => {
  const skills = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(skills, "csv/scripts"), { recursive: true });
    await Deno.writeTextFile(join(skills, "csv/SKILL.md"), "# csv");
    await Deno.writeTextFile(join(skills, "csv/scripts/run.ts"), "return 1");
    await using rt = await open({ skillsRoot: skills });
    const r = await rt.execute({
      workspace: {
        inputs: [{ from: "skill://csv" }, { from: "skill://csv/SKILL.md", to: "work/s.md" }],
      },
      code:
        `return [await workspace.readText("skills/csv/scripts/run.ts"), await workspace.readText("work/s.md"),
        (${readMeta.replace("return ", "")}).skills]`,
    });
    const [script, md, meta] = ok(r) as [string, string, Record<string, SkillMeta>];
    assert.deepEqual([script, md], ["return 1", "# csv"]);
    assert.deepEqual(Object.keys(meta), ["csv"]);
    assert.equal(meta.csv.rel_path, "skills/csv");
    assert.equal(meta.csv.mounted, false);
    assert.equal(meta.csv.digest, await dirDigest(join(skills, "csv")));
    for (const from of ["skill://../etc", "skill://csv/../../x", "skill://nope"]) {
      const bad = await rt.execute({ workspace: { inputs: [{ from }] }, code: "return 1" });
      assert.match(code(bad), /invalid_request|not_found/, from);
    }
  } finally {
    await Deno.remove(skills, { recursive: true });
  }
  await using none = await open();
  const r = await none.execute({
    workspace: { inputs: [{ from: "skill://csv" }] },
    code: "return 1",
  });
  assert.equal(code(r), "not_supported");
});

Deno.test("inputs: hostile specs are refused before anything is written", async () => {
  await using rt = await open();
  await rt.saveArtifact({ name: "a.txt", data: "a" });
  const bad: unknown[] = [
    { from: "artifact://a.txt", to: "../x" },
    { from: "artifact://a.txt", to: "/etc/x" },
    { from: "artifact://a.txt", to: "a/../../x" },
    { from: "file:///etc/passwd" },
    { from: "artifact://a.txt", mode: "symlink" },
    { from: "artifact://a.txt", pin: "yes" },
    "artifact://a.txt",
    null,
  ];
  for (const spec of bad) {
    const r = await rt.execute({ workspace: { inputs: [spec] } as never, code: "return 1" });
    assert.equal(code(r), "invalid_request", JSON.stringify(spec));
  }
  // workspace:// of another namespace is not found, as if it did not exist.
  const mine = await rt.execute({
    namespace: "team-a",
    workspace: { persist: true },
    code: `await workspace.writeText("s.txt", "secret"); return 1`,
  });
  const from = `workspace://${report(mine).id}/s.txt`;
  const other = await rt.execute({
    namespace: "team-b",
    workspace: { inputs: [{ from }] },
    code: "return 1",
  });
  assert.equal(code(other), "not_found");
  const same = await rt.execute({
    namespace: "team-a",
    workspace: { inputs: [{ from }] },
    code: `return await workspace.readText("work/inputs/s.txt")`,
  });
  assert.equal(ok(same), "secret");
});
