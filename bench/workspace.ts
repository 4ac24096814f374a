/**
 * Workspaces: staging 100 small files before a run and collecting 100
 * outputs after it, on the host (the run itself is measured elsewhere).
 *
 * @module
 */
import { join } from "node:path";
import {
  collectOutputs,
  prepareWorkspace,
  removeWorkspace,
  type WorkspaceHost,
} from "../src/engine/workspaces/workspace.ts";
import { check, summarize, type Summary } from "./stats.ts";

/** Stage, collect, and both, p50/p95 in ms. */
export async function workspaceBench(samples: number): Promise<{
  stageMs: Summary;
  collectMs: Summary;
  totalMs: Summary;
  collectAsArtifactsMs: Summary;
}> {
  const root = await Deno.makeTempDir({ prefix: "cordon-bench-ws-" });
  let saved = 0;
  const host: WorkspaceHost = {
    root,
    namespace: "default",
    artifact: () => Promise.resolve(undefined),
    saveArtifact: (o) => {
      saved++;
      return Promise.resolve({
        name: o.name,
        version: 1,
        mimeType: "text/plain",
        size: 0,
        sha256: "",
        createdAt: 0,
        ref: `${o.name}@1`,
        namespace: "default",
      });
    },
  };
  const files: Record<string, string> = {};
  for (let i = 0; i < 100; i++) files[`in/f${i}.txt`] = `line ${i}\n`.repeat(10);
  const stage: number[] = [];
  const collect: number[] = [];
  const total: number[] = [];
  const asArtifacts: number[] = [];
  try {
    for (let i = 0; i < samples + 5; i++) {
      const t0 = performance.now();
      const ws = await prepareWorkspace({ files, outputs: { globs: ["out/**"] } }, host);
      const t1 = performance.now();
      // What a script would write: 100 outputs.
      await Deno.mkdir(join(ws.dir, "out"), { recursive: true }); // the layout may have made it
      for (let k = 0; k < 100; k++) await Deno.writeTextFile(join(ws.dir, "out", `o${k}.txt`), "r");
      const t2 = performance.now();
      const report = await collectOutputs(ws, host);
      const t3 = performance.now();
      check(report.outputs.length === 100, "100 outputs collected");
      const t4 = performance.now();
      await collectOutputs(
        { ...ws, outputs: { globs: ["out/**"], saveAs: { prefix: "b/" } } },
        host,
      );
      const t5 = performance.now();
      await removeWorkspace(root, ws.id);
      if (i < 5) continue;
      stage.push(t1 - t0);
      collect.push(t3 - t2);
      total.push(t1 - t0 + t3 - t2);
      asArtifacts.push(t5 - t4);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  check(saved > 0, "artifacts saved");
  return {
    stageMs: summarize(stage),
    collectMs: summarize(collect),
    totalMs: summarize(total),
    collectAsArtifactsMs: summarize(asArtifacts),
  };
}
