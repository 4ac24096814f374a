/**
 * The host's side of Python: where Pyodide's files are, and its memory snapshot. Python runs
 * inside the ordinary locked-down child (the guest loads Pyodide from these files); the host
 * finds the files once, and builds a snapshot of a loaded interpreter once per Pyodide version
 * in a trusted child of its own (read the files, write only the snapshot), so later children
 * restore it instead of booting CPython (measured: 2.9 s cold, 0.6 s from a snapshot).
 *
 * @module
 */
import { LOCKED_RUN_FLAGS } from "./flags.ts";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { CordonError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import type { LanguageFiles } from "./languages.ts";
import { ARG_PYODIDE, ARG_PYODIDE_SNAPSHOT as ARG_SNAPSHOT } from "./protocol.ts";

/** The Pyodide version Cordon is built and tested against (deno.json imports it). */
export const PYODIDE_VERSION = "314.0.7";

/** Modules imported before the snapshot is taken, so runs find them loaded. */
const SNAPSHOT_IMPORTS =
  "import json, sys, os, re, math, types, traceback, asyncio, datetime, collections\n" +
  "import pyodide.code, pyodide.ffi";

/** The trusted snapshot maker: run with read access to Pyodide and write access to one file. */
const MAKER = `const [dir, out] = Deno.args;
const { loadPyodide } = await import(new URL("file://" + dir + "/pyodide.mjs").href);
const py = await loadPyodide({ indexURL: dir + "/", _makeSnapshot: true });
await py.runPythonAsync(${JSON.stringify(SNAPSHOT_IMPORTS)});
Deno.writeFileSync(out, py.makeMemorySnapshot());
`;

function isPyodideDir(dir: string): boolean {
  try {
    return Deno.statSync(join(dir, "pyodide.mjs")).isFile &&
      Deno.statSync(join(dir, "pyodide.asm.wasm")).isFile;
  } catch {
    return false;
  }
}

/** Where Pyodide may be: resolved from this module, the project's node_modules, DENO_DIR. */
function candidates(): string[] {
  const out: string[] = [];
  const nm = join("node_modules", ".deno", `pyodide@${PYODIDE_VERSION}`, "node_modules", "pyodide");
  try {
    out.push(dirname(createRequire(import.meta.url).resolve("pyodide")));
  } catch {
    // Not resolvable from here (no node_modules, or Cordon loaded over HTTPS).
  }
  if (new URL(import.meta.url).protocol === "file:") {
    out.push(join(fileURLToPath(new URL("../../", import.meta.url)), nm));
  }
  out.push(join(Deno.cwd(), nm));
  try {
    const home = Deno.env.get("HOME");
    const denoDir = Deno.env.get("DENO_DIR") ?? (home ? join(home, ".cache", "deno") : undefined);
    if (denoDir) {
      out.push(join(denoDir, "npm", "registry.npmjs.org", "pyodide", PYODIDE_VERSION));
    }
  } catch {
    // No env access: the other places only.
  }
  return out;
}

/**
 * Pyodide's directory: `override` when given (it must hold Pyodide), else the first place
 * Pyodide is found. Throws `not_supported` naming the fix when there is none.
 */
export function findPyodideDir(override?: string): string {
  const fix = `add "pyodide": "npm:pyodide@${PYODIDE_VERSION}" to deno.json imports and run ` +
    "`deno install`, or pass createRuntime({ python: { pyodideDir } })";
  if (override !== undefined) {
    if (isPyodideDir(override)) return override;
    throw new CordonError(
      "not_supported",
      `python.pyodideDir ${override} holds no Pyodide (pyodide.mjs, pyodide.asm.wasm): ${fix}`,
    );
  }
  const found = candidates().find(isPyodideDir);
  // One real path, so the snapshot's key does not depend on which way it was found.
  if (found) return Deno.realPathSync(found);
  throw new CordonError("not_supported", `Python needs Pyodide ${PYODIDE_VERSION}: ${fix}`);
}

/** Options for {@link PythonFiles}. */
export interface PythonFilesOptions {
  /** Pyodide's directory (default: found by {@link findPyodideDir}). */
  pyodideDir?: string;
  /** Where the snapshot is kept (the runtime's cache folder). */
  cacheDir: string;
  /** The Deno binary for the trusted snapshot maker. */
  denoPath: string;
  /** The DENO_DIR it runs with. */
  denoDir: string;
  /** False: no snapshot is built or used; every child boots CPython (default true). */
  snapshot?: boolean;
}

/** Pyodide's files for Python children, and the snapshot built once beside them. */
export class PythonFiles {
  readonly #options: PythonFilesOptions;
  #dir: string | undefined;
  #snapshot: string | undefined;
  #building: Promise<void> | undefined;

  constructor(options: PythonFilesOptions) {
    this.#options = options;
  }

  /** Pyodide's directory; throws `not_supported` (naming the fix) when there is none. */
  dir(): string {
    this.#dir ??= findPyodideDir(this.#options.pyodideDir);
    if (this.#dir.includes(",")) {
      throw new CordonError("not_supported", `Pyodide's path has a comma: ${this.#dir}`);
    }
    return this.#dir;
  }

  /** What a Python child reads and is told: Pyodide's files and the snapshot once built. */
  files(): LanguageFiles {
    const dir = this.dir();
    const snapshot = this.#snapshot;
    return {
      readPaths: snapshot ? [dir, snapshot] : [dir],
      args: snapshot ? [ARG_PYODIDE + dir, ARG_SNAPSHOT + snapshot] : [ARG_PYODIDE + dir],
    };
  }

  /** True once children restore from a snapshot. */
  get snapshotted(): boolean {
    return this.#snapshot !== undefined;
  }

  /**
   * Builds the snapshot once (or finds it built, by this or an earlier runtime), in a trusted
   * child that may read Pyodide and write only a temporary file, renamed into place when whole.
   * A failure leaves children loading without it.
   */
  snapshot(): Promise<void> {
    if (this.#options.snapshot === false) return Promise.resolve();
    this.#building ??= this.#build().catch(() => {});
    return this.#building;
  }

  async #build(): Promise<void> {
    const dir = this.dir();
    const { cacheDir, denoPath, denoDir } = this.#options;
    const key = (await sha256Hex(`${dir}\u0000${MAKER}`)).slice(0, 16);
    const folder = join(cacheDir, "python");
    const path = join(folder, `pyodide-${PYODIDE_VERSION}-${key}.snapshot`);
    try {
      if ((await Deno.stat(path)).size > 0) return void (this.#snapshot = path);
    } catch {
      // Not built yet.
    }
    await Deno.mkdir(folder, { recursive: true });
    const maker = join(folder, `make-snapshot-${key}.mjs`);
    const temp = `${path}.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(`${maker}.tmp`, MAKER);
    await Deno.rename(`${maker}.tmp`, maker);
    const out = await new Deno.Command(denoPath, {
      args: [
        ...LOCKED_RUN_FLAGS,
        `--allow-read=${dir},${maker}`,
        `--allow-write=${temp}`,
        "--deny-net",
        "--deny-env",
        "--deny-run",
        "--deny-ffi",
        "--deny-sys",
        maker,
        dir,
        temp,
      ],
      clearEnv: true,
      env: { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      await Deno.remove(temp).catch(() => {});
      throw new Error(new TextDecoder().decode(out.stderr).slice(0, 2000));
    }
    await Deno.rename(temp, path);
    this.#snapshot = path;
  }
}
