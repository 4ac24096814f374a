/**
 * Workspace outputs: files matched by glob after a run, bounded, optionally
 * saved as artifacts; and the byte count the quota watcher reads. Nothing
 * here follows a symlink.
 *
 * @module
 */
import { join, relative, resolve } from "node:path";
import type { Workspace, WorkspaceHost, WorkspaceOutput, WorkspaceReport } from "./types.ts";
import { WORKSPACE_DEFAULTS } from "./types.ts";
import { compileGlob } from "./glob.ts";
import { nextTurn } from "../../loop.ts";

/**
 * Matching work done between two turns of the event loop. A workspace holds
 * what its script wrote, so its paths are many and long at will; matching
 * them in slices keeps every other tenant's requests moving.
 */
const MATCH_SLICE_MS = 10;

/** Files under `dir` (relative paths), never following symlinks. */
async function* walk(dir: string, base = dir): AsyncGenerator<{ path: string; size: number }> {
  const files: string[] = [];
  const dirs: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isSymlink) continue;
    if (e.isDirectory) dirs.push(join(dir, e.name));
    else if (e.isFile) files.push(join(dir, e.name));
  }
  // Sizes side by side: a directory of a hundred outputs is one round of stats, not a hundred.
  const sizes = await Promise.all(files.map((f) => Deno.lstat(f).then((i) => i.size)));
  for (let i = 0; i < files.length; i++) yield { path: relative(base, files[i]), size: sizes[i] };
  for (const d of dirs) yield* walk(d, base);
}

/** Bytes the workspace holds now. */
export async function workspaceBytes(dir: string): Promise<number> {
  let total = 0;
  for await (const f of walk(dir)) total += f.size;
  return total;
}

/**
 * A regular file's bytes, or undefined when it holds more than `max` (read to one byte past
 * it, never further). A symlink is not followed: it is refused like an oversized file.
 */
async function readAtMost(path: string, max: number): Promise<Uint8Array | undefined> {
  if (!(await Deno.lstat(path)).isFile) return undefined;
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(max + 1);
  let filled = 0;
  while (filled < buffer.length) {
    const n = await file.read(buffer.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return filled > max ? undefined : buffer.subarray(0, filled);
}

/** Collects outputs by glob, bounded; saves them as artifacts when asked. */
export async function collectOutputs(ws: Workspace, host: WorkspaceHost): Promise<WorkspaceReport> {
  const report: WorkspaceReport = { id: ws.id, persisted: ws.persist, outputs: [], limitsHit: [] };
  if (ws.bootstrapped !== undefined) report.bootstrapped = ws.bootstrapped;
  const spec = ws.outputs;
  if (!spec) return report;
  const patterns = spec.globs.map(compileGlob);
  const maxFiles = spec.maxFiles ?? WORKSPACE_DEFAULTS.maxFiles;
  const maxFileBytes = spec.maxFileBytes ?? WORKSPACE_DEFAULTS.maxFileBytes;
  const maxTotal = spec.maxTotalBytes ?? WORKSPACE_DEFAULTS.maxTotalBytes;
  const hit = new Set<string>();
  const found: { path: string; size: number }[] = [];
  let slice = performance.now();
  for await (const f of walk(ws.dir)) {
    if (patterns.some((p) => p.test(f.path))) found.push(f);
    if (performance.now() - slice > MATCH_SLICE_MS) {
      await nextTurn();
      slice = performance.now();
    }
  }
  found.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  let total = 0;
  for (const f of found) {
    if (report.outputs.length >= maxFiles) {
      hit.add("maxFiles");
      break;
    }
    if (f.size > maxFileBytes) {
      hit.add("maxFileBytes");
      continue;
    }
    if (total + f.size > maxTotal) {
      hit.add("maxTotalBytes");
      break;
    }
    const out: WorkspaceOutput = { path: f.path, size: f.size };
    if (spec.saveAs) {
      // The size that counts is the bytes read, not what a stat said before: a file that
      // grew since is refused (its writer is stopped or gone by now, so it should not).
      const data = await readAtMost(resolve(ws.dir, f.path), Math.min(f.size, maxFileBytes));
      if (data === undefined) {
        hit.add("maxFileBytes");
        continue;
      }
      if (total + data.length > maxTotal) {
        hit.add("maxTotalBytes");
        break;
      }
      out.size = data.length;
      const info = await host.saveArtifact({
        name: `${spec.saveAs.prefix}${f.path}`,
        data,
        namespace: host.namespace,
      });
      out.ref = info.ref;
    }
    total += out.size;
    report.outputs.push(out);
  }
  report.limitsHit = [...hit];
  return report;
}
