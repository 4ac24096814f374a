/**
 * Workspaces: a directory an execution may read and write and nothing
 * else, laid out as the executor document says (`skills/ work/ runs/ out/`,
 * `metadata.json`), staged before the run (files, inputs, a fingerprinted
 * bootstrap of files and commands, init hooks), held to its quota during it,
 * and its outputs collected (a manifest, artifacts) after it; traced.
 *
 * @module
 */
export {
  compileGlob,
  type FileRef,
  type Glob,
  type InputSpec,
  MAX_GLOB_CHARS,
  MAX_INLINE_OUTPUT_BYTES,
  MAX_INPUT_SPECS,
  MAX_OUTPUT_GLOBS,
  type OutputManifest,
  type OutputSpec,
  type ProgramRunner,
  type ResourceLimits,
  type RunProgramSpec,
  type RunResult,
  WORKSPACE_DEFAULTS,
  type WorkspaceBootstrapSpec,
  type WorkspaceCommand,
  type WorkspaceFile,
  type WorkspaceHost,
  type WorkspaceInitEnv,
  type WorkspaceInitFn,
  type WorkspaceOutput,
  type WorkspaceOutputs,
  type WorkspaceRef,
  type WorkspaceReport,
  type WorkspaceRequest,
} from "./workspace.ts";
export {
  DEFAULT_EXEC_FILE_MODE,
  DEFAULT_SCRIPT_FILE_MODE,
  DIR_OUT,
  DIR_RUNS,
  DIR_SKILLS,
  DIR_WORK,
  ensureLayout,
  ENV_OUTPUT_DIR,
  ENV_RUN_DIR,
  ENV_SKILL_NAME,
  ENV_SKILLS_DIR,
  ENV_WORK_DIR,
  INLINE_SOURCE_DIR,
  META_FILE_NAME,
  normalizeGlobs,
  WORKSPACE_ENV_DIR_KEY,
  type WorkspaceLayout,
} from "./layout.ts";
export {
  type InputRecord,
  type LoadedMetadata,
  loadMetadata,
  MAX_METADATA_BYTES,
  METADATA_VERSION,
  type OutputRecord,
  type PreparedRecord,
  saveMetadata,
  type SkillMeta,
  type WorkspaceMetadata,
} from "./metadata.ts";
export { dirDigest } from "./inputs.ts";
export { isTextMime } from "./manifest.ts";
export { MAX_BOOTSTRAP_STEPS } from "./bootstrap.ts";
export {
  type WorkspaceInitCommand,
  workspaceInitHook,
  type WorkspaceInitSpec,
  WorkspaceRegistry,
} from "./hooks.ts";
export * from "./tracing.ts";
