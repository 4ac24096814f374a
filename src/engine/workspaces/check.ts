/**
 * A workspace request checked whole, before anything is written: the
 * document's shapes (a list of `InputSpec`s, a bootstrap of files and
 * commands, an `OutputSpec` in any accepted spelling) are checked here, the
 * original ones by `checkBaseRequest`.
 *
 * @module
 */
import { bad, checkBaseRequest } from "./request.ts";
import { checkInputSpec } from "./inputs.ts";
import { checkBootstrapSpec, isBootstrapSpec } from "./bootstrap.ts";
import { parseOutputSpec } from "./manifest.ts";
import type { WorkspaceRequest } from "./types.ts";

/** Inputs one request may list. */
export const MAX_INPUT_SPECS = 100;

/** Checks a request's shape before anything is written; returns it normalized. */
export function checkWorkspaceRequest(req: unknown): WorkspaceRequest {
  if (req === null || typeof req !== "object" || Array.isArray(req)) return checkBaseRequest(req);
  const r = { ...(req as WorkspaceRequest) };
  const base: WorkspaceRequest = { ...r };
  if (Array.isArray(r.inputs)) {
    if (r.inputs.length > MAX_INPUT_SPECS) throw bad(`inputs lists at most ${MAX_INPUT_SPECS}`);
    r.inputs = r.inputs.map(checkInputSpec);
    delete base.inputs;
  }
  if (isBootstrapSpec(r.bootstrap)) {
    checkBootstrapSpec(r.bootstrap);
    delete base.bootstrap;
  }
  if (r.outputs !== undefined) {
    r.outputs = parseOutputSpec(r.outputs);
    base.outputs = r.outputs;
  }
  checkBaseRequest(base);
  return r;
}
