import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createRuntime,
  DIR_OUT,
  DIR_RUNS,
  DIR_SKILLS,
  DIR_WORK,
  ensureLayout,
  type ExecuteResult,
  INLINE_SOURCE_DIR,
  isTextMime,
  loadMetadata,
  META_FILE_NAME,
  newMetadataForTest,
  normalizeGlobs,
  type Runtime,
  saveMetadata,
  type WorkspaceMetadata,
  type WorkspaceReport,
} from "./_imports.ts";
import { MAX_METADATA_BYTES } from "../../../src/engine/workspaces/metadata.ts";

function open(): Promise<Runtime> {
  return createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off" });
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

const report = (r: ExecuteResult) => (r as { workspace?: WorkspaceReport }).workspace!;

Deno.test("layout: the documented names and normalizeGlobs' documented examples", () => {
  assert.deepEqual([DIR_SKILLS, DIR_WORK, DIR_RUNS, DIR_OUT, META_FILE_NAME, INLINE_SOURCE_DIR], [
    "skills",
    "work",
    "runs",
    "out",
    "metadata.json",
    "src",
  ]);
  assert.deepEqual(
    normalizeGlobs([
      "$OUTPUT_DIR/a.txt",
      "${WORK_DIR}/x/**",
      "$WORKSPACE_DIR/out",
      "$SKILLS_DIR/s/*.md",
      "${OUTPUT_DIR}",
      "$HOME/x",
      "${NOPE}/y",
      "out/*.csv",
      "$OUTPUT_DIRX/a",
    ]),
    [
      "out/a.txt",
      "work/x/**",
      "out",
      "skills/s/*.md",
      "out",
      "$HOME/x",
      "${NOPE}/y",
      "out/*.csv",
      "$OUTPUT_DIRX/a",
    ],
  );
});

Deno.test("layout: every workspace gets skills/ work/ runs/ out/ and a metadata.json", async () => {
  await using rt = await open();
  const r = await rt.execute({
    workspace: { files: { "a.txt": "x" }, outputs: { globs: ["$OUTPUT_DIR/*.txt"] } },
    code: `
      const kinds = {};
      for await (const e of Deno.readDir(workspace.dir)) kinds[e.name] = e.isDirectory ? "dir" : "file";
      await workspace.writeText("out/r.txt", "done");
      return { kinds, meta: JSON.parse(await workspace.readText("metadata.json")) };`,
  });
  const { kinds, meta } = ok(r) as { kinds: Record<string, string>; meta: WorkspaceMetadata };
  assert.deepEqual(kinds, {
    "a.txt": "file",
    skills: "dir",
    work: "dir",
    runs: "dir",
    out: "dir",
    "metadata.json": "file",
  });
  assert.equal(meta.version, 1);
  for (const k of ["created_at", "updated_at", "last_access"] as const) {
    assert.ok(!Number.isNaN(Date.parse(meta[k])), k);
  }
  assert.deepEqual(meta.skills, {});
  // The $OUTPUT_DIR glob collected out/r.txt; metadata.json itself is never an output.
  assert.deepEqual(report(r).outputs.map((o) => o.path), ["out/r.txt"]);
});

Deno.test("metadata: loadMetadata/saveMetadata round-trip; junk is re-created with a typed error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const layout = await ensureLayout(dir);
    assert.equal(layout.metadata, join(dir, "metadata.json"));
    const missing = await loadMetadata(dir);
    assert.equal(missing.error, undefined);
    const md = newMetadataForTest();
    md.inputs = [{ from: "artifact://a", to: "work/inputs/a", version: 2, ts: md.created_at }];
    await saveMetadata(dir, md);
    const back = await loadMetadata(dir);
    assert.equal(back.error, undefined);
    assert.deepEqual(back.metadata.inputs, md.inputs);
    const hostile: [string, () => Promise<void>][] = [
      ["not JSON", () => Deno.writeTextFile(layout.metadata, "{{{ junk")],
      ["wrong shape", () => Deno.writeTextFile(layout.metadata, '{"version":"1","skills":[]}')],
      ["a hostile record", () =>
        Deno.writeTextFile(
          layout.metadata,
          JSON.stringify({ ...md, prepared: { k: { key: 1, kind: "x" } } }),
        )],
      ["__proto__", () => Deno.writeTextFile(layout.metadata, '{"__proto__":{"polluted":1}}')],
      [
        "over the size bound",
        () => Deno.writeTextFile(layout.metadata, " ".repeat(MAX_METADATA_BYTES + 1)),
      ],
      ["a directory", async () => {
        await Deno.remove(layout.metadata);
        await Deno.mkdir(join(layout.metadata, "x"), { recursive: true });
      }],
      ["invalid UTF-8", () => Deno.writeFile(layout.metadata, new Uint8Array([0x7b, 0xff, 0x7d]))],
    ];
    for (const [why, corrupt] of hostile) {
      await corrupt();
      const got = await loadMetadata(dir);
      assert.equal(got.error?.code, "invalid_state", why);
      assert.equal(got.metadata.version, 1, why);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      await saveMetadata(dir, got.metadata);
      assert.equal((await loadMetadata(dir)).error, undefined, `${why}: re-created`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("metadata: a script writing junk into metadata.json never breaks the host", async () => {
  await using rt = await open();
  const first = await rt.execute({
    workspace: { persist: true },
    code: `await Deno.writeTextFile(workspace.dir + "/metadata.json", "\\u0000 not json");
      // A file where out/ goes: the host's layout is restored on the next use.
      await Deno.remove(workspace.dir + "/out", { recursive: true });
      await Deno.writeTextFile(workspace.dir + "/out", "not a directory");
      return 1`,
  });
  ok(first);
  const id = report(first).id;
  const second = await rt.execute({
    workspace: { id, outputs: { globs: ["out/*"] } },
    code: `
      const before = JSON.parse(await workspace.readText("metadata.json"));
      await workspace.writeText("metadata.json", JSON.stringify({ version: 1, skills: 5 }));
      await workspace.writeText("out/x.txt", "y");
      return before.version;`,
  });
  assert.equal(ok(second), 1);
  const rep = report(second);
  assert.match(rep.warnings!.join(" "), /metadata\.json is not JSON; re-created/);
  // Collection found it junk again, re-created it, and recorded the collection.
  assert.match(rep.warnings!.join(" "), /documented shape/);
  assert.deepEqual(rep.outputs.map((o) => o.path), ["out/x.txt"]);
  const third = await rt.execute({
    workspace: { id },
    code: `return JSON.parse(await workspace.readText("metadata.json")).outputs.length`,
  });
  assert.equal(ok(third), 1);
  assert.equal(report(third).warnings, undefined);
});

Deno.test("outputs: OutputSpec in snake_case and Go keys, manifest with inline text, MIME, versions", async () => {
  await using rt = await open();
  const script = `
    await workspace.writeText("out/a.txt", "hello");
    await workspace.writeText("out/d.json", '{"k":1}');
    await Deno.writeFile(workspace.dir + "/out/b.bin", new Uint8Array([0, 1, 2]));
    await workspace.writeText("out/big.txt", "é".repeat(200_000));
    return 0;`;
  const r = await rt.execute({
    code: script,
    workspace: {
      persist: true,
      outputs: {
        globs: ["$OUTPUT_DIR/*"],
        max_files: 10,
        MaxFileBytes: 1_000_000,
        save: true,
        name_template: "runs/{name}",
        inline: true,
      } as never,
    },
  });
  ok(r);
  const m = report(r).manifest!;
  assert.equal(m.limitsHit, false);
  const byName = Object.fromEntries(m.files.map((f) => [f.name, f]));
  assert.deepEqual(Object.keys(byName), ["out/a.txt", "out/b.bin", "out/big.txt", "out/d.json"]);
  assert.deepEqual(byName["out/a.txt"], {
    name: "out/a.txt",
    mimeType: "text/plain; charset=utf-8",
    content: "hello",
    savedAs: "runs/out/a.txt",
    version: 1,
    sizeBytes: 5,
    truncated: false,
  });
  assert.equal(byName["out/b.bin"].content, undefined);
  assert.equal(byName["out/b.bin"].mimeType, "application/octet-stream");
  assert.equal(byName["out/d.json"].content, '{"k":1}');
  const big = byName["out/big.txt"];
  assert.equal(big.truncated, true);
  assert.equal(big.sizeBytes, 400_000);
  assert.ok(big.content!.length <= 128 * 1024 && big.content!.endsWith("é"));
  assert.equal((await rt.artifact("runs/out/a.txt"))!.info.version, 1);
  // Recorded in metadata.json as an OutputRecord.
  const again = await rt.execute({
    workspace: { id: report(r).id, outputs: { Globs: ["out/a.txt"], save: true } as never },
    code: `return JSON.parse(await workspace.readText("metadata.json")).outputs`,
  });
  const records = ok(again) as { globs: string[]; saved_as: string[]; versions: number[] }[];
  assert.deepEqual(records[0].globs, ["out/*"]);
  assert.deepEqual(records[0].saved_as!.length, 4);
  assert.deepEqual(report(again).manifest!.files[0].savedAs, "out/a.txt");
  // A bound hit is limitsHit: true; a field given twice or unknown is refused.
  const bounded = await rt.execute({
    code: script,
    workspace: { outputs: { globs: ["out/*"], maxFiles: 1 } },
  });
  assert.equal(report(bounded).manifest!.limitsHit, true);
  for (
    const outputs of [{ globs: ["out/*"], max_files: 1, maxFiles: 2 }, { globs: ["x"], nope: 1 }]
  ) {
    const bad = await rt.execute({ code: "return 1", workspace: { outputs } as never });
    assert.equal((bad as { error?: { code: string } }).error?.code, "invalid_request");
  }
  // Glob escapes are refused whatever their spelling.
  for (const g of ["$WORKSPACE_DIR/../x", "../**", "/etc/*", "${WORK_DIR}/../../x"]) {
    const bad = await rt.execute({ code: "return 1", workspace: { outputs: { globs: [g] } } });
    assert.equal((bad as { error?: { code: string } }).error?.code, "invalid_request", g);
  }
});

Deno.test("isTextMime: text and structured text, not bytes", () => {
  for (const t of ["text/plain", "text/csv; charset=utf-8", "application/json", "image/svg+xml"]) {
    assert.ok(isTextMime(t), t);
  }
  for (const t of ["application/octet-stream", "image/png", "application/pdf"]) {
    assert.ok(!isTextMime(t), t);
  }
});

Deno.test("capabilities() answers the documented workspace fields", async () => {
  await using rt = await open();
  assert.deepEqual(rt.capabilities().workspace, {
    isolation: "process",
    networkAllowed: true,
    readOnlyMount: false,
    streaming: true,
    maxDiskBytes: 100 * 1024 * 1024,
  });
});
