/**
 * A workspace request, checked before anything is written: every path stays
 * inside the workspace, inline files are bounded, inputs and stage sources
 * are well-formed, output globs are bounded in number and length, and the
 * quotas are positive and under their maximum.
 *
 * @module
 */
import { normalize } from "node:path";
import { CordonError } from "../../errors.ts";
import { MAX_GLOB_CHARS } from "./glob.ts";
import { WORKSPACE_DEFAULTS, WORKSPACE_MAX_QUOTA_ENTRIES, type WorkspaceRequest } from "./types.ts";

/** A workspace id: `ws_` and 32 hex digits. */
export const WORKSPACE_ID = /^ws_[0-9a-f]{32}$/;

/** Output globs one run may give: each is matched against every file the workspace holds. */
export const MAX_OUTPUT_GLOBS = 50;

/** A refused workspace request. */
export function bad(message: string): CordonError {
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

/** Checks the shape of a request in its original form (map inputs and bootstrap, camelCase outputs). */
export function checkBaseRequest(req: unknown): WorkspaceRequest {
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
  if (r.id !== undefined && (typeof r.id !== "string" || !WORKSPACE_ID.test(r.id))) {
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
