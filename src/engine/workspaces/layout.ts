/**
 * The workspace layout of the executor document: `skills/`, `work/`, `runs/`
 * and `out/` under every workspace, and `metadata.json` at its root; the
 * environment keys a program sees; `normalizeGlobs` for `$OUTPUT_DIR`-style
 * glob prefixes.
 *
 * @module
 */
import { join } from "node:path";

/** Skills staged as working copies (`skill://` inputs land under `skills/<name>`). */
export const DIR_SKILLS = "skills";
/** Writable shared intermediates (inputs land under `work/inputs/` by default). */
export const DIR_WORK = "work";
/** Per-run working directories. */
export const DIR_RUNS = "runs";
/** Outputs to collect. */
export const DIR_OUT = "out";
/** The metadata file at the workspace root. */
export const META_FILE_NAME = "metadata.json";
/** Where inline code blocks are written (and run as the working directory). */
export const INLINE_SOURCE_DIR = "src";
/** The default POSIX mode of a staged text file. */
export const DEFAULT_SCRIPT_FILE_MODE = 0o644;
/** The default POSIX mode of a staged executable. */
export const DEFAULT_EXEC_FILE_MODE = 0o755;

/** The environment key naming the workspace directory. */
export const WORKSPACE_ENV_DIR_KEY = "WORKSPACE_DIR";
/** The environment key naming `skills/`. */
export const ENV_SKILLS_DIR = "SKILLS_DIR";
/** The environment key naming `work/`. */
export const ENV_WORK_DIR = "WORK_DIR";
/** The environment key naming `out/`. */
export const ENV_OUTPUT_DIR = "OUTPUT_DIR";
/** The environment key naming the run's directory under `runs/`. */
export const ENV_RUN_DIR = "RUN_DIR";
/** The environment key naming the skill a program runs for. */
export const ENV_SKILL_NAME = "SKILL_NAME";

/** Full paths of a workspace's layout, as {@link ensureLayout} returns them. */
export interface WorkspaceLayout {
  /** The workspace root. */
  root: string;
  /** `<root>/skills`. */
  skills: string;
  /** `<root>/work`. */
  work: string;
  /** `<root>/runs`. */
  runs: string;
  /** `<root>/out`. */
  out: string;
  /** `<root>/metadata.json`. */
  metadata: string;
}

/**
 * Creates `skills/ work/ runs/ out/` under `root` when absent and returns their full paths
 * (and that of `metadata.json`, which `saveMetadata` writes). The layout is the host's: a
 * file a script left where a layout directory goes is removed and the directory made.
 */
export async function ensureLayout(root: string): Promise<WorkspaceLayout> {
  const layout: WorkspaceLayout = {
    root,
    skills: join(root, DIR_SKILLS),
    work: join(root, DIR_WORK),
    runs: join(root, DIR_RUNS),
    out: join(root, DIR_OUT),
    metadata: join(root, META_FILE_NAME),
  };
  // Side by side: on a reopened workspace this is four stats, one round.
  await Promise.all([layout.skills, layout.work, layout.runs, layout.out].map(async (dir) => {
    const info = await Deno.lstat(dir).catch(() => undefined);
    if (info?.isDirectory) return;
    if (info) await Deno.remove(dir);
    await Deno.mkdir(dir, { recursive: true });
  }));
  return layout;
}

/** Glob prefixes {@link normalizeGlobs} rewrites, variable name → workspace-relative dir. */
const GLOB_PREFIXES: Record<string, string> = {
  [WORKSPACE_ENV_DIR_KEY]: "",
  [ENV_SKILLS_DIR]: DIR_SKILLS,
  [ENV_WORK_DIR]: DIR_WORK,
  [ENV_OUTPUT_DIR]: DIR_OUT,
};

const PREFIX = /^\$(?:\{([A-Z_]+)\}|([A-Z_]+))(?=\/|$)/;

/**
 * Rewrites globs that start with a workspace variable (`$OUTPUT_DIR`, `${WORK_DIR}`,
 * `$WORKSPACE_DIR`, `$SKILLS_DIR`) into workspace-relative ones; unknown variables and globs
 * without a prefix are returned as they are.
 *
 * @example
 * ```ts
 * import { normalizeGlobs } from "./layout.ts";
 * console.assert(normalizeGlobs(["$OUTPUT_DIR/a.txt"])[0] === "out/a.txt");
 * console.assert(normalizeGlobs(["${WORK_DIR}/x/**"])[0] === "work/x/**");
 * console.assert(normalizeGlobs(["$WORKSPACE_DIR/out"])[0] === "out");
 * console.assert(normalizeGlobs(["$HOME/x"])[0] === "$HOME/x");
 * ```
 */
export function normalizeGlobs(patterns: readonly string[]): string[] {
  return patterns.map((p) => {
    const m = PREFIX.exec(p);
    if (!m) return p;
    const dir = GLOB_PREFIXES[m[1] ?? m[2]];
    if (dir === undefined) return p;
    const rest = p.slice(m[0].length).replace(/^\/+/, "");
    if (dir === "") return rest === "" ? "." : rest;
    return rest === "" ? dir : `${dir}/${rest}`;
  });
}
