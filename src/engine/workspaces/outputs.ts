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
import { mimeTypeOf, OCTET_STREAM } from "../artifacts/mime.ts";
import { META_FILE_NAME } from "./layout.ts";
import { type OutputRecord, updateMetadata } from "./metadata.ts";
import {
  type FileRef,
  isTextMime,
  MAX_INLINE_OUTPUT_BYTES,
  type OutputManifest,
  type OutputSpec,
  parseOutputSpec,
  savedName,
} from "./manifest.ts";
import {
  ATTR_COUNT,
  ATTR_EXEC_ID,
  ATTR_PATH,
  ATTR_PATTERNS,
  inSpan,
  traceContext,
} from "./tracing.ts";
import { SPAN_WORKSPACE_COLLECT, SPAN_WORKSPACE_INLINE } from "./tracing.ts";

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

/**
 * Collects outputs by glob, bounded; saves them as artifacts when asked; returns the report
 * with its manifest, and records the collection in metadata.json when the workspace is kept.
 */
export async function collectOutputs(ws: Workspace, host: WorkspaceHost): Promise<WorkspaceReport> {
  const report: WorkspaceReport = { id: ws.id, persisted: ws.persist, outputs: [], limitsHit: [] };
  if (ws.bootstrapped !== undefined) report.bootstrapped = ws.bootstrapped;
  if (ws.warnings?.length) report.warnings = [...ws.warnings];
  if (!ws.outputs) return report;
  const spec = parseOutputSpec(ws.outputs);
  const attrs = {
    [ATTR_PATTERNS]: spec.globs,
    ...(ws.execId ? { [ATTR_EXEC_ID]: ws.execId } : {}),
  };
  return await inSpan(SPAN_WORKSPACE_COLLECT, attrs, traceContext(ws.traceparent), async (span) => {
    const manifest = await collect(ws, host, spec, report);
    span.setAttribute(ATTR_COUNT, manifest.files.length);
    report.manifest = manifest;
    // A throwaway workspace is removed next: nobody would read the record.
    if (!ws.persist) return report;
    const saved = manifest.files.filter((f) => f.savedAs !== undefined);
    const metaError = await updateMetadata(ws.dir, (md) => {
      const record: OutputRecord = {
        globs: spec.globs,
        limits_hit: manifest.limitsHit,
        ts: new Date().toISOString(),
      };
      if (saved.length) {
        record.saved_as = saved.map((f) => f.savedAs!);
        record.versions = saved.map((f) => f.version!);
      }
      (md.outputs ??= []).push(record);
    }).catch((err) => err as Error);
    if (metaError) (report.warnings ??= []).push(metaError.message);
    return report;
  });
}

async function collect(
  ws: Workspace,
  host: WorkspaceHost,
  spec: OutputSpec,
  report: WorkspaceReport,
): Promise<OutputManifest> {
  const patterns = spec.globs.map(compileGlob);
  const maxFiles = spec.maxFiles ?? WORKSPACE_DEFAULTS.maxFiles;
  const maxFileBytes = spec.maxFileBytes ?? WORKSPACE_DEFAULTS.maxFileBytes;
  const maxTotal = spec.maxTotalBytes ?? WORKSPACE_DEFAULTS.maxTotalBytes;
  const hit = new Set<string>();
  const found: { path: string; size: number }[] = [];
  let slice = performance.now();
  for await (const f of walk(ws.dir)) {
    if (f.path !== META_FILE_NAME && patterns.some((p) => p.test(f.path))) found.push(f);
    if (performance.now() - slice > MATCH_SLICE_MS) {
      await nextTurn();
      slice = performance.now();
    }
  }
  found.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const files: FileRef[] = [];
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
    const mimeType = mimeTypeOf(f.path) ?? OCTET_STREAM;
    const ref: FileRef = { name: f.path, mimeType, sizeBytes: f.size, truncated: false };
    const name = savedName(spec, f.path);
    const inline = spec.inline === true && isTextMime(mimeType);
    if (name !== undefined || inline) {
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
      out.size = ref.sizeBytes = data.length;
      if (inline) inlineContent(ref, data, ws);
      if (name !== undefined) {
        const info = await host.saveArtifact({ name, data, mimeType, namespace: host.namespace });
        if (spec.saveAs) out.ref = info.ref;
        ref.savedAs = info.name;
        ref.version = info.version;
      }
    }
    total += out.size;
    report.outputs.push(out);
    files.push(ref);
  }
  report.limitsHit = [...hit];
  return { files, limitsHit: hit.size > 0 };
}

/** Sets a text file's content on its reference, cut at {@link MAX_INLINE_OUTPUT_BYTES}. */
function inlineContent(ref: FileRef, data: Uint8Array, ws: Workspace): void {
  const cut = data.length > MAX_INLINE_OUTPUT_BYTES;
  const text = new TextDecoder().decode(cut ? data.subarray(0, MAX_INLINE_OUTPUT_BYTES) : data);
  // A cut may split a character: a trailing replacement character is dropped.
  ref.content = cut ? text.replace(/\uFFFD$/, "") : text;
  ref.truncated = cut;
  const attrs = { [ATTR_PATH]: ref.name, [ATTR_COUNT]: data.length };
  void inSpan(SPAN_WORKSPACE_INLINE, attrs, traceContext(ws.traceparent), () => Promise.resolve());
}
