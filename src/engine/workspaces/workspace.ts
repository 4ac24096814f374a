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
import { join, normalize, relative } from "node:path";
import { CordonError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import {
  type Workspace,
  WORKSPACE_DEFAULTS,
  WORKSPACE_MAX_QUOTA_ENTRIES,
  type WorkspaceHost,
  type WorkspaceRequest,
} from "./types.ts";
import { sha256Hex as sha256 } from "../../hash.ts";
import { MAX_GLOB_CHARS } from "./glob.ts";

export * from "./types.ts";
export { collectOutputs, workspaceBytes } from "./outputs.ts";
export { compileGlob, type Glob, MAX_GLOB_CHARS } from "./glob.ts";
export { quotaError, type WorkspaceQuota, type WorkspaceUsage, workspaceUsage } from "./quota.ts";

const ID = /^ws_[0-9a-f]{32}$/;

/** Output globs one run may give: each is matched against every file the workspace holds. */
export const MAX_OUTPUT_GLOBS = 50;

function bad(message: string): CordonError {
  return new CordonError("invalid_request", `Workspace: ${message}`);
}

/** A relative path inside the workspace, normalized; anything that could leave it is refused. */
export function insidePath(path: unknown): string {
  if (typeof path !== "string" || path === "" || path.length > 1_000 || path.includes("\0")) {
    throw bad(`"${String(path).slice(0, 100)}" is not a path`);
  }
  const norm = normalize(path).replace(/^\.\/+/, "");
  if (norm.startsWith("/") || norm === ".." || norm.startsWith("../") || norm === ".") {
    throw bad(`"${path}" leaves the workspace; paths are relative and stay inside it`);
  }
  return norm;
}

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

/** Checks a request's shape before anything is written. */
export function checkWorkspaceRequest(req: unknown): WorkspaceRequest {
  if (req === null || typeof req !== "object" || Array.isArray(req)) {
    throw bad("give an object ({ files?, inputs?, outputs?, persist?, id? })");
  }
  const r = req as WorkspaceRequest;
  let inline = 0;
  for (const [p, v] of Object.entries(r.files ?? {})) {
    insidePath(p);
    if (typeof v === "string") inline += v.length;
    else if (v && typeof v === "object" && typeof v.base64 === "string") inline += v.base64.length;
    else throw bad(`file "${p}" must be text or { base64 }`);
  }
  for (const [p, v] of Object.entries(r.bootstrap ?? {})) {
    insidePath(p);
    if (typeof v !== "string") throw bad(`bootstrap file "${p}" must be text`);
    inline += v.length;
  }
  if (inline > WORKSPACE_DEFAULTS.maxInlineBytes) {
    throw bad(`inline files are over ${WORKSPACE_DEFAULTS.maxInlineBytes} bytes; use artifacts`);
  }
  for (const [p, v] of Object.entries(r.inputs ?? {})) {
    insidePath(p);
    if (typeof v !== "string" || !/^(artifact|workspace):\/\//.test(v)) {
      throw bad(`input "${p}" must be artifact://name[@version] or workspace://<id>/<path>`);
    }
  }
  for (const s of r.stage ?? []) {
    if (typeof s?.from !== "string" || !s.from.startsWith("/")) {
      throw bad("stage.from must be an absolute host path");
    }
    insidePath(s.to);
  }
  if (r.id !== undefined && (typeof r.id !== "string" || !ID.test(r.id))) {
    throw bad(`"${String(r.id).slice(0, 80)}" is not a workspace id`);
  }
  if (r.outputs !== undefined) {
    const o = r.outputs;
    if (!Array.isArray(o?.globs) || o.globs.some((g) => typeof g !== "string" || g === "")) {
      throw bad("outputs.globs must be a list of globs");
    }
    if (o.globs.length > MAX_OUTPUT_GLOBS) {
      throw bad(`outputs.globs holds at most ${MAX_OUTPUT_GLOBS} globs`);
    }
    const long = o.globs.find((g) => g.length > MAX_GLOB_CHARS);
    if (long !== undefined) {
      throw bad(`a glob is at most ${MAX_GLOB_CHARS} characters (one has ${long.length})`);
    }
    for (const g of o.globs) insidePath(g.replace(/\*+/g, "x"));
    for (const k of ["maxFiles", "maxFileBytes", "maxTotalBytes"] as const) {
      const v = o[k];
      if (v !== undefined && !(Number.isSafeInteger(v) && v > 0)) {
        throw bad(`outputs.${k} must be a positive whole number`);
      }
    }
    if (o.saveAs !== undefined && typeof o.saveAs?.prefix !== "string") {
      throw bad('outputs.saveAs needs a prefix ("" for none)');
    }
  }
  const q = r.quotaBytes;
  if (q !== undefined && !(Number.isSafeInteger(q) && q > 0)) {
    throw bad("quotaBytes must be a positive whole number");
  }
  const e = r.quotaEntries;
  if (e !== undefined && !(Number.isSafeInteger(e) && e > 0)) {
    throw bad("quotaEntries must be a positive whole number");
  }
  if (e !== undefined && e > WORKSPACE_MAX_QUOTA_ENTRIES) {
    throw new CordonError(
      "limit_exceeded",
      `quotaEntries ${e} is above the maximum ${WORKSPACE_MAX_QUOTA_ENTRIES}`,
      { details: { limit: "quotaEntries", requested: e, maximum: WORKSPACE_MAX_QUOTA_ENTRIES } },
    );
  }
  return r;
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

async function readMeta(
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
