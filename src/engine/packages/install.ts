/**
 * Gets one allowed npm package, with its dependencies, onto the host disk.
 *
 * Deno does the work (`deno install` in a folder of its own, run as a
 * subprocess with Cordon's DENO_DIR): it resolves dependency ranges, checks
 * each tarball's integrity against the registry, honours the user's npm
 * registry settings, never runs install scripts, and leaves a plain
 * `node_modules` tree the bundler can read. Fetching tarballs by hand would
 * mean writing semver resolution and tar parsing; a dynamic `import("npm:…")`
 * in the host would run the package's code in the trusted process.
 *
 * @module
 */
import { join } from "node:path";
import { CordonError } from "../../errors.ts";

/** How long one install may take before it is given up (a cold registry fetch of a big tree). */
export const INSTALL_TIMEOUT_MS = 120_000;

/** Where and how packages are installed. */
export interface InstallOptions {
  /** The folder holding one install folder per `name@version`. */
  root: string;
  /** The Deno binary to run. */
  denoPath: string;
  /** Cordon's DENO_DIR, so the npm cache is shared and owned by Cordon. */
  denoDir: string;
}

const installing = new Map<string, Promise<string>>();

/** The install folder of `name@version` (scoped names keep their scope as a prefix). */
export function installDir(root: string, name: string, version: string): string {
  return join(root, `${name.replace("/", "+")}@${version}`);
}

/**
 * Installs `name@version` once per process (and once per disk: a finished
 * install is reused) and returns the package's real folder.
 */
export function installPackage(
  name: string,
  version: string,
  options: InstallOptions,
): Promise<string> {
  const dir = installDir(options.root, name, version);
  let got = installing.get(dir);
  if (!got) {
    got = install(dir, name, version, options);
    installing.set(dir, got);
    got.catch(() => installing.delete(dir));
  }
  return got;
}

async function install(
  dir: string,
  name: string,
  version: string,
  options: InstallOptions,
): Promise<string> {
  const pkgDir = join(dir, "node_modules", name);
  const done = join(dir, ".installed");
  if (await exists(done)) return await Deno.realPath(pkgDir);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, "package.json"),
    JSON.stringify({ private: true, dependencies: { [name]: version } }),
  );
  // A deno.json of its own stops Deno from reading any config above this folder.
  await Deno.writeTextFile(join(dir, "deno.json"), JSON.stringify({ nodeModulesDir: "auto" }));
  const env = Deno.env.toObject();
  const command = new Deno.Command(options.denoPath, {
    args: ["install", "--quiet"],
    cwd: dir,
    env: { ...env, DENO_DIR: options.denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(INSTALL_TIMEOUT_MS),
  });
  let out: Deno.CommandOutput;
  try {
    out = await command.output();
  } catch (err) {
    throw unavailable(name, version, err instanceof Error ? err.message : String(err));
  }
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ");
    throw unavailable(name, version, text || `deno install exited with ${out.code}`);
  }
  let real: string;
  try {
    real = await Deno.realPath(pkgDir);
  } catch {
    throw unavailable(name, version, "the install left no package folder");
  }
  await Deno.writeTextFile(done, new Date().toISOString());
  return real;
}

function unavailable(name: string, version: string, why: string): CordonError {
  return new CordonError(
    "package_unavailable",
    `Cannot install package ${name}@${version}: ${why}`,
    { details: { package: name, version } },
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
