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

export * from "./types.ts";
export { collectOutputs, workspaceBytes } from "./outputs.ts";
export { compileGlob, type Glob, MAX_GLOB_CHARS } from "./glob.ts";
export { quotaError, type WorkspaceQuota, type WorkspaceUsage, workspaceUsage } from "./quota.ts";
export { checkWorkspaceRequest, insidePath, MAX_OUTPUT_GLOBS } from "./request.ts";

function metaPath(root: string, id: string): string {
  return join(root, `${id}.json`);
}

async function writeFileIn(dir: string, rel: string, data: Uint8Array | string): Promise<void> {
  const path = join(dir, rel);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  if (typeof data === "string") await Deno.writeTextFile(path, data);
  else await Deno.writeFile(path, data);
}

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

/** Copies a host directory in, refusing symlinks (they would lead out of the workspace). */
async function copyTree(from: string, to: string): Promise<void> {
  const info = await Deno.lstat(from);
  if (info.isSymlink) throw bad(`"${from}" is a symlink; symlinks are never staged`);
  if (info.isFile) {
    await Deno.mkdir(join(to, ".."), { recursive: true });
    await Deno.copyFile(from, to);
    return;
  }
  if (!info.isDirectory) throw bad(`"${from}" is neither a file nor a directory`);
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) await copyTree(join(from, e.name), join(to, e.name));
}

/** Creates (or reopens) a workspace and stages its files. On failure nothing is left behind. */
export async function prepareWorkspace(
  req: WorkspaceRequest,
  host: WorkspaceHost,
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
  const dir = join(host.root, id);
  try {
    await Deno.mkdir(dir, { recursive: true });
    const real = await Deno.realPath(dir);
    await writeFiles(
      real,
      Object.entries(req.files ?? {}).map(([p, v]) => [
        insidePath(p),
        typeof v === "string" ? v : Uint8Array.from(atob(v.base64), (c) => c.charCodeAt(0)),
      ]),
    );
    for (const s of req.stage ?? []) await copyTree(s.from, join(real, insidePath(s.to)));
    for (const [p, ref] of Object.entries(req.inputs ?? {})) {
      await writeFileIn(real, insidePath(p), await readInput(ref, host));
    }
    let bootstrapped: boolean | undefined;
    if (req.bootstrap) {
      const fingerprint = await sha256(JSON.stringify(Object.entries(req.bootstrap).sort()));
      const meta = await readMeta(host.root, id);
      bootstrapped = meta?.bootstrap !== fingerprint;
      if (bootstrapped) {
        for (const [p, v] of Object.entries(req.bootstrap)) {
          await writeFileIn(real, insidePath(p), v);
        }
      }
      await writeMeta(host.root, id, { namespace: host.namespace, bootstrap: fingerprint });
    } else if (created) {
      await writeMeta(host.root, id, { namespace: host.namespace });
    }
    return {
      id,
      dir: real,
      persist: req.persist === true || req.id !== undefined,
      quotaBytes: req.quotaBytes ?? WORKSPACE_DEFAULTS.quotaBytes,
      quotaEntries: req.quotaEntries ?? WORKSPACE_DEFAULTS.quotaEntries,
      outputs: req.outputs,
      ...(bootstrapped === undefined ? {} : { bootstrapped }),
    };
  } catch (err) {
    if (created) await removeWorkspace(host.root, id);
    throw err;
  }
}

async function readInput(ref: string, host: WorkspaceHost): Promise<Uint8Array> {
  if (ref.startsWith("artifact://")) {
    const got = await host.artifact(ref, { namespace: host.namespace });
    if (!got) {
      throw new CordonError("not_found", `Workspace input ${ref}: there is no such artifact`);
    }
    return got.data;
  }
  const m = /^workspace:\/\/(ws_[0-9a-f]{32})\/(.+)$/.exec(ref);
  if (!m) throw bad(`input ${ref} must be workspace://<id>/<path>`);
  const meta = await readMeta(host.root, m[1]);
  if (!meta || meta.namespace !== host.namespace) {
    throw new CordonError("not_found", `Workspace input ${ref}: there is no such workspace`);
  }
  const path = join(host.root, m[1], insidePath(m[2]));
  const info = await Deno.lstat(path).catch(() => undefined);
  if (!info?.isFile) throw new CordonError("not_found", `Workspace input ${ref}: no such file`);
  return await Deno.readFile(path);
}

/** A workspace's record (its namespace), or undefined for an id that is not one. */
export async function readMeta(
  root: string,
  id: string,
): Promise<{ namespace: string; bootstrap?: string } | undefined> {
  if (!ID.test(id)) return undefined;
  try {
    return JSON.parse(await Deno.readTextFile(metaPath(root, id)));
  } catch {
    return undefined;
  }
}

async function writeMeta(
  root: string,
  id: string,
  meta: { namespace: string; bootstrap?: string },
): Promise<void> {
  // Beside the directory, not in it: the script cannot rewrite who owns it.
  await Deno.writeTextFile(metaPath(root, id), JSON.stringify(meta));
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

/** Removes a workspace and its record. */
export async function removeWorkspace(root: string, id: string): Promise<void> {
  await Deno.remove(join(root, id), { recursive: true }).catch(() => {});
  await Deno.remove(metaPath(root, id)).catch(() => {});
}
