/**
 * Workspaces: a directory an execution may read and write and nothing
 * else, staged before the run, held to its quota during it, and its outputs
 * collected (as artifacts) after it.
 *
 * @module
 */
export {
  compileGlob,
  type Glob,
  MAX_GLOB_CHARS,
  MAX_OUTPUT_GLOBS,
  WORKSPACE_DEFAULTS,
  type WorkspaceOutput,
  type WorkspaceOutputs,
  type WorkspaceReport,
  type WorkspaceRequest,
} from "./workspace.ts";
