/**
 * Workspaces: a directory an execution may read and write, and nothing
 * else. Before the run the host stages files into it (inline files, host
 * directories for library callers, artifacts, files of a persisted
 * workspace, an idempotent bootstrap); the child gets `--allow-read` and
 * `--allow-write` for that directory only; after the run the host collects
 * outputs by glob, bounded, optionally as artifacts, and removes the
 * directory unless asked to keep it.
 *
 * Deno follows symlinks inside an allowed directory, so none may exist in
 * one: the host never stages a symlink, and a script cannot make one (that
 * needs unscoped read and write permission).
 *
 * @module
 */
import { join, relative } from "node:path";
import { CordonError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import {
  type Workspace,
  WORKSPACE_DEFAULTS,
  type WorkspaceHost,
  type WorkspaceRequest,
} from "./types.ts";
import { sha256Hex as sha256 } from "../../hash.ts";
import { bad, insidePath, WORKSPACE_ID as ID } from "./request.ts";
import type { Context } from "@opentelemetry/api";
import { metaPath, readMeta, writeMeta } from "./owner.ts";
import { copyTree, stageInputs } from "./inputs.ts";
import { ensureLayout } from "./layout.ts";
import { loadMetadata, saveMetadata } from "./metadata.ts";
import { applyBootstrap, isBootstrapSpec } from "./bootstrap.ts";
import { runInitHooks } from "./hooks.ts";
import { ATTR_COUNT, ATTR_EXEC_ID, ATTR_HOST_PATH, ATTR_MOUNT_USED, ATTR_PATH } from "./tracing.ts";
import { ATTR_TO, inSpan, SPAN_WORKSPACE_CLEANUP, SPAN_WORKSPACE_CREATE } from "./tracing.ts";
import { SPAN_WORKSPACE_STAGE_DIR, SPAN_WORKSPACE_STAGE_FILES, traceContext } from "./tracing.ts";

export * from "./types.ts";
export { collectOutputs, workspaceBytes } from "./outputs.ts";
export { compileGlob, type Glob, MAX_GLOB_CHARS } from "./glob.ts";
export { quotaError, type WorkspaceQuota, type WorkspaceUsage, workspaceUsage } from "./quota.ts";
export { insidePath, MAX_OUTPUT_GLOBS } from "./request.ts";
export { checkWorkspaceRequest, MAX_INPUT_SPECS } from "./check.ts";

/** Writes many files: each directory made once, the writes side by side. */
async function writeFiles(dir: string, files: [string, Uint8Array | string][]): Promise<void> {
  const parents = new Set(files.map(([rel]) => join(dir, rel, "..")));
  for (const p of parents) await Deno.mkdir(p, { recursive: true });
  const BATCH = 32;
  for (let i = 0; i < files.length; i += BATCH) {
    await Promise.all(
      files.slice(i, i + BATCH).map(([rel, data]) => {
        const path = join(dir, rel);
        return typeof data === "string"
          ? Deno.writeTextFile(path, data)
          : Deno.writeFile(path, data);
      }),
    );
  }
}

/**
 * Creates (or reopens) a workspace: its layout (`skills/ work/ runs/ out/`, metadata.json),
 * init hooks when it is new, then the request's files, host directories, inputs and bootstrap,
 * each recorded in metadata.json. On failure nothing new is left behind.
 */
export async function prepareWorkspace(
  req: WorkspaceRequest,
  host: WorkspaceHost,
): Promise<Workspace> {
  const attrs = host.execId ? { [ATTR_EXEC_ID]: host.execId } : {};
  return await inSpan(SPAN_WORKSPACE_CREATE, attrs, traceContext(host.traceparent), (span, ctx) => {
    return prepare(req, host, ctx, (id) => span.setAttribute(ATTR_PATH, id));
  });
}

async function prepare(
  req: WorkspaceRequest,
  host: WorkspaceHost,
  ctx: Context,
  named: (id: string) => void,
): Promise<Workspace> {
  await Deno.mkdir(host.root, { recursive: true });
  let id = req.id;
  let created = false;
  if (id !== undefined) {
    const meta = await readMeta(host.root, id);
    if (!meta || meta.namespace !== host.namespace) {
      throw new CordonError("not_found", `There is no persisted workspace ${id}`);
    }
    // Nothing of Cordon's makes a symlink there, but the directory lives on a host: check.
    const link = await findSymlink(join(host.root, id));
    if (link) {
      throw bad(`"${link}" is a symlink; a workspace with one is not opened (it could lead out)`);
    }
    // Its record's time is its last use: the sweep keeps what is used.
    const now = new Date();
    await Deno.utime(metaPath(host.root, id), now, now).catch(() => {});
  } else {
    id = newId("ws");
    created = true;
  }
  named(id);
  const dir = join(host.root, id);
  try {
    await Deno.mkdir(dir, { recursive: true });
    // Owned from the start: a bootstrap command's run reopens it by id.
    if (created) await writeMeta(host.root, id, { namespace: host.namespace });
    const real = await Deno.realPath(dir);
    const ref = { id, dir: real, namespace: host.namespace };
    const [, { metadata, error }] = await Promise.all([ensureLayout(real), loadMetadata(real)]);
    const warnings: string[] = error ? [error.message] : [];
    if (created && host.initHooks?.length) {
      const env = { workspace: ref, host, runner: host.runner, execId: host.execId };
      await runInitHooks(host.initHooks, env);
      Object.assign(metadata, (await loadMetadata(real)).metadata);
    }
    const files = Object.entries(req.files ?? {});
    if (files.length) {
      await inSpan(SPAN_WORKSPACE_STAGE_FILES, { [ATTR_COUNT]: files.length }, ctx, async () => {
        await writeFiles(
          real,
          files.map(([p, v]) => [
            insidePath(p),
            typeof v === "string" ? v : Uint8Array.from(atob(v.base64), (c) => c.charCodeAt(0)),
          ]),
        );
      });
    }
    for (const s of req.stage ?? []) {
      const to = insidePath(s.to);
      const attrs = { [ATTR_HOST_PATH]: s.from, [ATTR_TO]: to, [ATTR_MOUNT_USED]: false };
      await inSpan(SPAN_WORKSPACE_STAGE_DIR, attrs, ctx, () => copyTree(s.from, join(real, to)));
    }
    const inputs = Array.isArray(req.inputs)
      ? req.inputs
      : Object.entries(req.inputs ?? {}).map(([to, from]) => ({ from, to }));
    await stageInputs(real, inputs, host, metadata, ctx);
    let bootstrapped: boolean | undefined;
    if (isBootstrapSpec(req.bootstrap)) {
      const done = await applyBootstrap(ref, req.bootstrap, host, metadata, ctx);
      bootstrapped = done.ran.length > 0;
      warnings.push(...done.warnings);
    } else if (req.bootstrap) {
      const fingerprint = await sha256(JSON.stringify(Object.entries(req.bootstrap).sort()));
      const meta = await readMeta(host.root, id);
      bootstrapped = meta?.bootstrap !== fingerprint;
      if (bootstrapped) {
        await writeFiles(
          real,
          Object.entries(req.bootstrap).map(([p, v]) => [insidePath(p), v] as [string, string]),
        );
      }
      await writeMeta(host.root, id, {
        ...meta,
        namespace: host.namespace,
        bootstrap: fingerprint,
      });
    }
    await saveMetadata(real, metadata);
    return {
      id,
      dir: real,
      persist: req.persist === true || req.id !== undefined,
      quotaBytes: req.quotaBytes ?? WORKSPACE_DEFAULTS.quotaBytes,
      quotaEntries: req.quotaEntries ?? WORKSPACE_DEFAULTS.quotaEntries,
      outputs: req.outputs,
      ...(bootstrapped === undefined ? {} : { bootstrapped }),
      ...(warnings.length ? { warnings } : {}),
      ...(host.traceparent ? { traceparent: host.traceparent } : {}),
      ...(host.execId ? { execId: host.execId } : {}),
    };
  } catch (err) {
    if (created) await removeWorkspace(host.root, id);
    throw err;
  }
}

/** The first symlink under `dir` (relative), if any. */
async function findSymlink(dir: string, base = dir): Promise<string | undefined> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isSymlink) return relative(base, join(dir, e.name));
    if (e.isDirectory) {
      const found = await findSymlink(join(dir, e.name), base);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Removes workspaces last used more than `olderThanMs` ago (persisted ones nobody came back to,
 * and any a crashed process left); returns their ids.
 */
export async function sweepWorkspaces(root: string, olderThanMs: number): Promise<string[]> {
  const before = Date.now() - olderThanMs;
  const gone: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(root));
  } catch {
    return gone;
  }
  for (const e of entries) {
    const id = e.name.replace(/\.json$/, "");
    if (!e.isFile || id === e.name || !ID.test(id)) continue;
    const used = (await Deno.stat(join(root, e.name)).catch(() => undefined))?.mtime?.getTime();
    if (used !== undefined && used < before) {
      await removeWorkspace(root, id);
      gone.push(id);
    }
  }
  return gone;
}

/** Removes a workspace and its record (a `workspace.cleanup` span in the trace of `ws`). */
export async function removeWorkspace(
  root: string,
  id: string,
  ws?: { traceparent?: string; execId?: string },
): Promise<void> {
  const attrs = { [ATTR_PATH]: id, ...(ws?.execId ? { [ATTR_EXEC_ID]: ws.execId } : {}) };
  await inSpan(SPAN_WORKSPACE_CLEANUP, attrs, traceContext(ws?.traceparent), async () => {
    const dir = join(root, id);
    await Deno.remove(dir, { recursive: true }).catch(async () => {
      // A tree staged read-only cannot be emptied by a user that is not root: writable first.
      await makeWritable(dir).catch(() => {});
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    });
    await Deno.remove(metaPath(root, id)).catch(() => {});
  });
}

/** Gives the owner write permission on every directory under `dir` (symlinks untouched). */
async function makeWritable(dir: string): Promise<void> {
  const info = await Deno.lstat(dir);
  if (!info.isDirectory) return;
  await Deno.chmod(dir, (info.mode ?? 0o755) | 0o700);
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) await makeWritable(join(dir, e.name));
  }
}
