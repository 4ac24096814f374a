import assert from "node:assert/strict";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { createRuntime, type ExecuteResult, type WorkspaceReport } from "./_imports.ts";
import { denoRunner } from "../../_helpers/deno_runner.ts";

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const PARENT = "b7ad6b7169203331";

Deno.test("tracing: workspace spans with the documented names and keys, children of the traceparent", async () => {
  exporter.reset();
  const late: { rt?: Awaited<ReturnType<typeof createRuntime>> } = {};
  const rt = late.rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    workspaces: { runner: denoRunner(() => late.rt!) },
  });
  await using _ = rt;
  await rt.saveArtifact({ name: "in.txt", data: "x" });
  const r: ExecuteResult = await rt.execute({
    traceparent: `00-${TRACE}-${PARENT}-01`,
    workspace: {
      files: { "a.txt": "a", "b.txt": "b" },
      inputs: [{ from: "artifact://in.txt" }],
      bootstrap: {
        files: [{ target: "s.ts", content: "return 0" }],
        commands: [{ cmd: "deno", args: ["s.ts"] }],
      },
      outputs: { globs: ["$OUTPUT_DIR/*"], inline: true },
    },
    code: `await workspace.writeText("out/r.txt", "done"); return 1`,
  });
  assert.equal(r.status, "completed");
  const ws = (r as { workspace?: WorkspaceReport }).workspace!;
  const mine = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === TRACE);
  const byName = (n: string) => mine.filter((s) => s.name === n);
  const create = byName("workspace.create");
  assert.equal(create.length, 1);
  assert.equal(create[0].parentSpanContext?.spanId, PARENT);
  assert.equal(create[0].attributes.exec_id, r.executionId);
  assert.equal(create[0].attributes.path, ws.id);
  const createId = create[0].spanContext().spanId;
  const files = byName("workspace.stage.files");
  assert.deepEqual(files.map((s) => s.attributes.count), [2, 1, 1]);
  assert.deepEqual(files.map((s) => s.attributes.to), [undefined, "work/inputs/in.txt", "s.ts"]);
  for (const s of files) assert.equal(s.parentSpanContext?.spanId, createId);
  const run = byName("workspace.run");
  assert.equal(run.length, 1);
  assert.equal(run[0].parentSpanContext?.spanId, createId);
  assert.deepEqual(
    [
      run[0].attributes.cmd,
      run[0].attributes.cwd,
      run[0].attributes.exit_code,
      run[0].attributes.timed_out,
    ],
    ["deno", "", 0, false],
  );
  const collect = byName("workspace.collect");
  assert.equal(collect.length, 1);
  assert.equal(collect[0].parentSpanContext?.spanId, PARENT);
  assert.deepEqual(collect[0].attributes.patterns, ["out/*"]);
  assert.equal(collect[0].attributes.count, 1);
  assert.equal(byName("workspace.inline")[0].attributes.path, "out/r.txt");
  const cleanup = byName("workspace.cleanup");
  assert.equal(cleanup.length, 1);
  assert.equal(cleanup[0].attributes.path, ws.id);
});

Deno.test("tracing: host:// staging is a workspace.stage.dir span; a failure is recorded on its span", async () => {
  exporter.reset();
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/d`);
    await Deno.writeTextFile(`${root}/d/f.txt`, "f");
    await using rt = await createRuntime({
      db: ":memory:",
      pool: { size: 0 },
      typecheck: "off",
      workspaces: { hostRoots: [root] },
    });
    const real = await Deno.realPath(`${root}/d`);
    await rt.execute({
      workspace: { inputs: [{ from: `host://${root}/d`, to: "d" }] },
      code: "return 1",
    });
    const dir = exporter.getFinishedSpans().find((s) => s.name === "workspace.stage.dir")!;
    assert.deepEqual(dir.attributes, { host_path: real, to: "d", mount_used: false, count: 1 });
    // A malformed traceparent is ignored: the spans start their own trace.
    exporter.reset();
    const r = await rt.execute({
      traceparent: "00-zz",
      workspace: { inputs: [{ from: "artifact://none" }] },
      code: "return 1",
    });
    assert.equal(r.status, "error");
    const create = exporter.getFinishedSpans().find((s) => s.name === "workspace.create")!;
    assert.equal(create.parentSpanContext, undefined);
    assert.equal(create.status.code, 2);
    assert.match(create.status.message ?? "", /no such artifact/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
