/**
 * File operations on an existing workspace, as the executor document's
 * `WorkspaceFS` does them: files put in (paths kept inside, no symlink
 * followed, the quota respected, modes applied), host directories copied in
 * from the allowed roots (optionally read-only), and files collected by glob
 * as the document's `File`s (text inline, bounded).
 *
 * @module
 */
import { join } from "node:path";
import type { Context } from "@opentelemetry/api";
import { CordonError } from "../../errors.ts";
import { allowedHostPath, copyTree, stageInputs } from "./inputs.ts";
import { DEFAULT_SCRIPT_FILE_MODE } from "./layout.ts";
import { loadMetadata, saveMetadata, updateMetadata } from "./metadata.ts";
import { collectOutputs } from "./outputs.ts";
import { quotaError, workspaceUsage } from "./quota.ts";
import { bad, insidePath } from "./request.ts";
import { checkWorkspaceRequest } from "./check.ts";
import { ATTR_COUNT, ATTR_HOST_PATH, ATTR_MOUNT_USED, ATTR_TO, inSpan } from "./tracing.ts";
import { SPAN_WORKSPACE_STAGE_DIR, SPAN_WORKSPACE_STAGE_FILES, traceContext } from "./tracing.ts";
import type { InputSpec } from "./spec_types.ts";
import { type Workspace, WORKSPACE_DEFAULTS, type WorkspaceHost } from "./types.ts";

/** Files one `putFiles` call may write. */
export const MAX_PUT_FILES = 10_000;

/** A file to place into a workspace (the document's `PutFile`). */
export interface PutFile {
  /** Workspace-relative path (no `..`, not absolute); parents are made. */
  path: string;
  /** Its content: text (written as UTF-8) or bytes. */
  content: string | Uint8Array;
  /** POSIX mode bits, 0 to 0o777 (default 0o644, `DEFAULT_SCRIPT_FILE_MODE`). */
  mode?: number;
}

/** How a directory is staged (the document's `StageOptions`). */
export interface StageOptions {
  /** After the copy, write permission is taken from every file and directory of the tree. */
  readOnly?: boolean;
  /** Accepted, but Cordon never mounts: the tree is copied all the same (`mountUsed: false`). */
  allowMount?: boolean;
}

/** What `stageDirectory` did. */
export interface StageReport {
  /** Files copied. */
  files: number;
  /** Always false: trees are copied, never mounted. */
  mountUsed: false;
  /** Write permission was taken from the copy. */
  readOnly: boolean;
}

/** A file collected from a workspace (the document's `File`). */
export interface File {
  /** Its workspace-relative path. */
  name: string;
  /** Its text when its MIME type is text (`isTextMime`), cut at 256 KiB; absent for bytes. */
  content?: string;
  /** Guessed from its extension (`application/octet-stream` when unknown). */
  mimeType: string;
  /** Its size in bytes. */
  sizeBytes: number;
  /** Its inline content was cut. */
  truncated: boolean;
}

/** The bounds a workspace is held to. */
export interface QuotaBounds {
  /** Bytes it may hold. */
  quotaBytes: number;
  /** Entries it may hold (default {@link WORKSPACE_DEFAULTS.quotaEntries}). */
  quotaEntries?: number;
}

/**
 * The full path of `rel` under `dir`, its parents made; refused when an existing part of it is
 * a symlink (it could lead out) or, for a parent, not a directory.
 */
async function safeTarget(dir: string, rel: string): Promise<string> {
  const parts = rel.split("/");
  let at = dir;
  for (const [i, part] of parts.entries()) {
    at = join(at, part);
    const info = await Deno.lstat(at).catch(() => undefined);
    if (info?.isSymlink) {
      throw bad(`"${rel}" passes through a symlink; symlinks are never followed`);
    }
    if (i === parts.length - 1) break;
    if (!info) await Deno.mkdir(at);
    else if (!info.isDirectory) {
      throw bad(`"${parts.slice(0, i + 1).join("/")}" is not a directory`);
    }
  }
  return at;
}

/** Runs a write; a failure of the file system (a name too long, no permission) is typed. */
async function typed<T>(path: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof CordonError) throw err;
    throw bad(`"${path}" could not be written: ${(err as Error)?.message ?? String(err)}`);
  }
}

/** Throws `limit_exceeded` when adding `bytes` and `entries` would pass the quota. */
async function checkRoom(dir: string, q: QuotaBounds, bytes: number, entries: number) {
  const maxEntries = q.quotaEntries ?? WORKSPACE_DEFAULTS.quotaEntries;
  const usage = await workspaceUsage(dir, maxEntries);
  if (usage.entries + entries > maxEntries) {
    throw new CordonError(
      "limit_exceeded",
      `The workspace would hold more than ${maxEntries} entries, over its quota`,
      { details: { entries: usage.entries + entries, quotaEntries: maxEntries } },
    );
  }
  if (usage.bytes + bytes > q.quotaBytes) {
    throw new CordonError(
      "limit_exceeded",
      `The workspace would hold ${usage.bytes + bytes} bytes, over its ${q.quotaBytes}-byte quota`,
      { details: { bytes: usage.bytes + bytes, quotaBytes: q.quotaBytes } },
    );
  }
}

/**
 * Writes `files` into the workspace directory `dir`: every path checked (inside, no symlink on
 * the way), the whole call checked against the quota before anything is written, each file's
 * mode applied (umask notwithstanding). A `workspace.stage.files` span.
 */
export async function putFiles(
  dir: string,
  files: readonly PutFile[],
  quota: QuotaBounds,
  ctx?: Context,
): Promise<void> {
  if (!Array.isArray(files) || files.length > MAX_PUT_FILES) {
    throw bad(`putFiles takes a list of at most ${MAX_PUT_FILES} { path, content, mode? }`);
  }
  const checked = files.map((f) => {
    if (f === null || typeof f !== "object") throw bad("a file is { path, content, mode? }");
    const path = insidePath(f.path);
    const data = typeof f.content === "string"
      ? new TextEncoder().encode(f.content)
      : f.content instanceof Uint8Array
      ? f.content
      : undefined;
    if (!data) throw bad(`file "${path}": content is text or a Uint8Array`);
    const mode = f.mode ?? DEFAULT_SCRIPT_FILE_MODE;
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o777) {
      throw bad(`file "${path}": mode is POSIX permission bits, 0 to 0o777`);
    }
    return { path, data, mode };
  });
  let bytes = 0;
  let entries = 0;
  for (const f of checked) {
    const old = await Deno.lstat(join(dir, f.path)).catch(() => undefined);
    bytes += f.data.length - (old?.isFile ? old.size : 0);
    if (!old) entries++;
  }
  await checkRoom(dir, quota, bytes, entries);
  await inSpan(SPAN_WORKSPACE_STAGE_FILES, { [ATTR_COUNT]: checked.length }, ctx, async () => {
    for (const f of checked) {
      const target = await safeTarget(dir, f.path);
      const info = await Deno.lstat(target).catch(() => undefined);
      if (info && !info.isFile) throw bad(`"${f.path}" exists and is not a file`);
      await typed(f.path, async () => {
        await Deno.writeFile(target, f.data, { mode: f.mode });
        await Deno.chmod(target, f.mode);
      });
    }
  });
}

/** Takes write permission from a tree (files and directories; symlinks never exist in one). */
async function readOnlyTree(path: string): Promise<void> {
  const info = await Deno.lstat(path);
  if (info.isDirectory) {
    for await (const e of Deno.readDir(path)) await readOnlyTree(join(path, e.name));
  }
  if (info.isFile || info.isDirectory) await Deno.chmod(path, (info.mode ?? 0o644) & 0o555);
}

/**
 * Copies the host directory (or file) `src` to `to` in the workspace `dir`: `src` must lie
 * under one of `host.hostRoots` (else `policy_denied`, like `host://` inputs); symlinks in it
 * are refused; the quota is checked first; `readOnly` takes write permission from the copy.
 * Never a mount, even with `allowMount`. A `workspace.stage.dir` span; the copy is recorded
 * as an input (`host://…`, mode `copy`) in metadata.json.
 */
export async function stageDirectory(
  dir: string,
  host: Pick<WorkspaceHost, "hostRoots">,
  src: string,
  to: string,
  options: StageOptions = {},
  quota: QuotaBounds,
  ctx?: Context,
): Promise<StageReport> {
  if (typeof src !== "string" || src.length > 4096) throw bad("src is an absolute host path");
  const rel = insidePath(to);
  const real = await allowedHostPath(src, host.hostRoots);
  const info = await Deno.lstat(real);
  const maxEntries = quota.quotaEntries ?? WORKSPACE_DEFAULTS.quotaEntries;
  const size = info.isDirectory
    ? await workspaceUsage(real, maxEntries)
    : { bytes: info.size, entries: 1 };
  await checkRoom(dir, quota, size.bytes, size.entries);
  const target = await safeTarget(dir, rel);
  const attrs = { [ATTR_HOST_PATH]: real, [ATTR_TO]: rel, [ATTR_MOUNT_USED]: false };
  const files = await inSpan(SPAN_WORKSPACE_STAGE_DIR, attrs, ctx, async (span) => {
    const n = await typed(rel, () => copyTree(real, target));
    span.setAttribute(ATTR_COUNT, n);
    return n;
  });
  const readOnly = options?.readOnly === true;
  if (readOnly) await readOnlyTree(target);
  await updateMetadata(dir, (md) => {
    const ts = new Date().toISOString();
    (md.inputs ??= []).push({ from: `host://${real}`, to: rel, resolved: real, mode: "copy", ts });
  });
  return { files, mountUsed: false, readOnly };
}

/**
 * The files of `ws` matching `patterns` (`$OUTPUT_DIR/*`-style prefixes normalized, `**`
 * crossing directories) as the document's `File`s: text inline, bounded by the default output
 * limits (100 files, 10 MiB a file, 50 MiB in all, 256 KiB of text inlined a file). A
 * `workspace.collect` span; nothing is recorded or saved.
 */
export async function collectFiles(
  ws: Workspace,
  host: WorkspaceHost,
  patterns: readonly string[],
): Promise<File[]> {
  if (!Array.isArray(patterns)) throw bad("patterns is a list of globs");
  const { outputs } = checkWorkspaceRequest({ outputs: { globs: [...patterns], inline: true } });
  const report = await collectOutputs({ ...ws, persist: false, outputs }, host);
  return (report.manifest?.files ?? []).map((f) => ({
    name: f.name,
    ...(f.content !== undefined ? { content: f.content } : {}),
    mimeType: f.mimeType,
    sizeBytes: f.sizeBytes,
    truncated: f.truncated,
  }));
}

/**
 * Stages checked `InputSpec`s into `ws` (recorded in metadata.json, spans as when a run's
 * workspace is prepared). Artifact sizes are known only once read, so the quota is checked
 * after: over it, `limit_exceeded` (what was staged stays; a run there would be stopped).
 */
export async function stageInputsInto(
  ws: Workspace,
  host: WorkspaceHost,
  specs: readonly InputSpec[],
): Promise<void> {
  const { metadata } = await loadMetadata(ws.dir);
  try {
    await stageInputs(ws.dir, specs, host, metadata, traceContext(ws.traceparent));
  } finally {
    await saveMetadata(ws.dir, metadata);
  }
  const over = await quotaError(ws);
  if (over) throw new CordonError(over.code, over.message, { details: over.details });
}
