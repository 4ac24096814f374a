/**
 * Makes `import { createRuntime } from "@cordon/runtime"` work in a Deno project outside this
 * checkout, in one step:
 *
 *     cd my-project && deno run -A /path/to/cordon/scripts/link.ts
 *
 * (or pass the project's directory as the argument). It writes into the project's `deno.json`:
 *
 * - `@cordon/runtime` and `@cordon/runtime/testing`, mapped to this checkout's `mod.ts` and
 *   `testing.ts`. Deno 2.9.6 resolves the bare imports of files reached through such a mapping
 *   with the checkout's own `deno.json`, so Cordon's npm packages keep Cordon's exact pins
 *   whatever the project maps (an unpinned `typescript` of the project no longer reaches them).
 * - `zod` at Cordon's exact version: connectors are written with zod, and Cordon checks their
 *   schemas with its own copy, so the project must use the same one.
 *
 * and it merges the npm packages of Cordon's `deno.lock` (but those only its tests use) into the
 * project's lock, so the project
 * resolves every package, transitive ones included, to the versions Cordon is tested with (and
 * runs with `--cached-only` once they are in Deno's cache). What the project already has stays;
 * a different value for one of those names is refused, naming both, and nothing is written.
 *
 * @module
 */
import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The names the project gets, besides Cordon's own entry points: packages it shares with Cordon. */
export const SHARED_PACKAGES = ["zod"] as const;

/**
 * Packages Cordon's own tests and tools use, never its library: their lock entries (and the
 * packages only they pull in) stay out of a linked project's lock, which would otherwise install
 * them and list their build scripts.
 */
export const TEST_ONLY_PACKAGES = [
  "@modelcontextprotocol/inspector",
  "@modelcontextprotocol/server-everything",
  "@modelcontextprotocol/server-filesystem",
  "playwright-core",
] as const;

/** Lockfile versions this script can merge (Deno 2.9.6 writes 5). */
const LOCK_VERSION = "5";

/** A `deno.json` as far as this script reads it. */
export interface DenoConfig {
  name?: string;
  imports?: Record<string, string>;
  importMap?: string;
  lock?: boolean | string | { path?: string };
  nodeModulesDir?: string;
  [key: string]: unknown;
}

/** A `deno.lock` (version 5) as far as this script merges it. */
export interface DenoLock {
  version: string;
  specifiers?: Record<string, string>;
  npm?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What linking would change in a project, or why it cannot. */
export interface LinkPlan {
  /** The project's `imports` after the link. */
  imports: Record<string, string>;
  /** The entries added (name → target). */
  added: Record<string, string>;
  /** One message per name the project already maps differently; nothing is written then. */
  conflicts: string[];
  /** Things that work but are worth knowing. */
  warnings: string[];
}

/** A path as an import map value: relative to the project, starting with `./` or `../`. */
function importPath(projectDir: string, file: string): string {
  const rel = relative(projectDir, file).replaceAll("\\", "/");
  return rel.startsWith("../") ? rel : `./${rel}`;
}

/** The file an import map value names, or undefined when it is not a path. */
function fileOf(projectDir: string, value: string): string | undefined {
  if (value.startsWith("./") || value.startsWith("../")) return resolve(projectDir, value);
  if (isAbsolute(value)) return resolve(value);
  if (value.startsWith("file://")) return fileURLToPath(value);
  return undefined;
}

/** Works out the project's new `imports` (pure: nothing is read or written). */
export function planLink(
  project: DenoConfig,
  projectDir: string,
  cordon: DenoConfig,
  checkoutDir: string,
  configName = "deno.json",
): LinkPlan {
  const wanted: Record<string, string> = {
    "@cordon/runtime": importPath(projectDir, join(checkoutDir, "mod.ts")),
    "@cordon/runtime/testing": importPath(projectDir, join(checkoutDir, "testing.ts")),
  };
  for (const name of SHARED_PACKAGES) {
    const pin = cordon.imports?.[name];
    if (!pin) throw new Error(`Cordon's deno.json has no import for "${name}"`);
    wanted[name] = pin;
  }
  const imports = { ...(project.imports ?? {}) };
  const plan: LinkPlan = { imports, added: {}, conflicts: [], warnings: [] };
  if (project.importMap !== undefined) {
    plan.conflicts.push(
      `${configName} names an "importMap" file; Deno then ignores "imports". Move its entries ` +
        `into "imports" (or add these to it by hand: ${JSON.stringify(wanted)})`,
    );
    return plan;
  }
  for (const [name, value] of Object.entries(wanted)) {
    const had = imports[name];
    if (had === undefined) {
      imports[name] = value;
      plan.added[name] = value;
      continue;
    }
    const file = fileOf(projectDir, value);
    const same = had === value || (file !== undefined && fileOf(projectDir, had) === file);
    if (!same) {
      const why = name.startsWith("@cordon/")
        ? "this checkout's entry point"
        : "connector schemas are checked with Cordon's own copy";
      plan.conflicts.push(
        `"${name}" is "${had}" in ${configName}, but Cordon needs "${value}" (${why}). ` +
          `Change or remove it, then run this again.`,
      );
    }
  }
  if (project.nodeModulesDir === "manual") {
    plan.warnings.push(
      `${configName} says "nodeModulesDir": "manual": deno run works, but deno check cannot ` +
        `resolve Cordon's npm subpath imports that way; "auto" or no setting works for both`,
    );
  }
  return plan;
}

/**
 * Adds Cordon's locked npm packages to a project's lock: entries the project lacks are added,
 * the ones it has stay as they are. Returns how many were added.
 */
export function mergeLock(project: DenoLock, cordon: DenoLock): number {
  if (project.version !== LOCK_VERSION || cordon.version !== LOCK_VERSION) {
    throw new Error(
      `Cannot merge lockfile version ${project.version} with ${cordon.version} ` +
        `(this script knows version ${LOCK_VERSION})`,
    );
  }
  let added = 0;
  for (const section of ["specifiers", "npm"] as const) {
    const into = (project[section] ??= {}) as Record<string, unknown>;
    for (const [key, value] of Object.entries(cordon[section] ?? {})) {
      if (key in into) continue;
      into[key] = value;
      added++;
    }
  }
  return added;
}

/** The package name of a lock key or dependency (`@scope/name@1.0.0_peer@2` → `@scope/name`). */
function packageName(key: string): string {
  const at = key.indexOf("@", 1);
  return at === -1 ? key : key.slice(0, at);
}

/**
 * Cordon's lock without {@link TEST_ONLY_PACKAGES}: the specifiers of every other package and
 * the npm entries they reach through their dependencies.
 */
export function runtimeLock(cordon: DenoLock): DenoLock {
  const npm = (cordon.npm ?? {}) as Record<string, Record<string, unknown>>;
  const keysByName = new Map<string, string[]>();
  for (const key of Object.keys(npm)) {
    const name = packageName(key);
    keysByName.set(name, [...(keysByName.get(name) ?? []), key]);
  }
  const testOnly = new Set<string>(TEST_ONLY_PACKAGES);
  const specifiers: Record<string, string> = {};
  const todo: string[] = [];
  for (const [spec, version] of Object.entries(cordon.specifiers ?? {})) {
    const name = packageName(spec.replace(/^npm:/, ""));
    if (spec.startsWith("npm:") && testOnly.has(name)) continue;
    specifiers[spec] = version;
    if (spec.startsWith("npm:")) todo.push(`${name}@${version}`);
  }
  const kept: Record<string, unknown> = {};
  while (todo.length > 0) {
    const key = todo.pop()!;
    if (key in kept || !(key in npm)) continue;
    kept[key] = npm[key];
    const entry = npm[key];
    const deps = ["dependencies", "optionalDependencies", "optionalPeers"].flatMap((field) =>
      Array.isArray(entry[field]) ? entry[field] as string[] : []
    );
    for (const dep of deps) {
      // A dependency names its version only when the lock holds more than one.
      if (dep.indexOf("@", 1) !== -1) todo.push(dep);
      else todo.push(...(keysByName.get(dep) ?? []));
    }
  }
  return { ...cordon, specifiers, npm: kept };
}

function readJson<T>(path: string): T {
  const text = Deno.readTextFileSync(path);
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new Error(`${path} is not JSON (${(err as Error).message})`);
  }
}

function writeJson(path: string, value: unknown): void {
  Deno.writeTextFileSync(path, JSON.stringify(value, null, 2) + "\n");
}

/** The project's lockfile path, or undefined when its config turns the lock off. */
function lockPathOf(config: DenoConfig, projectDir: string): string | undefined {
  if (config.lock === false) return undefined;
  if (typeof config.lock === "string") return resolve(projectDir, config.lock);
  if (typeof config.lock === "object" && config.lock?.path) {
    return resolve(projectDir, config.lock.path);
  }
  return join(projectDir, "deno.lock");
}

/** Links the project in `projectDir` to this checkout; returns the lines to print, or throws. */
export function link(projectDir: string, checkoutDir: string): string[] {
  if (!existsSync(projectDir) || !statSync(projectDir).isDirectory()) {
    throw new Error(`${projectDir} is not a directory`);
  }
  const inside = relative(checkoutDir, projectDir);
  if (inside === "" || (!inside.startsWith("..") && !isAbsolute(inside))) {
    throw new Error(`${projectDir} is inside the checkout: import "@cordon/runtime" there as is`);
  }
  const configPath = join(projectDir, "deno.json");
  if (!existsSync(configPath) && existsSync(join(projectDir, "deno.jsonc"))) {
    throw new Error(
      `${projectDir} has a deno.jsonc, which this script does not rewrite (comments would be ` +
        `lost): rename it to deno.json, or add the imports by hand`,
    );
  }
  const project: DenoConfig = existsSync(configPath) ? readJson(configPath) : {};
  const cordon: DenoConfig = readJson(join(checkoutDir, "deno.json"));
  const plan = planLink(project, projectDir, cordon, checkoutDir);
  if (plan.conflicts.length) throw new Error(plan.conflicts.join("\n"));
  // The lock is read and merged before anything is written, so a refusal leaves both files.
  const lockPath = lockPathOf(project, projectDir);
  let lock: DenoLock | undefined;
  let lockAdded = 0;
  if (lockPath) {
    const found: DenoLock = existsSync(lockPath) ? readJson(lockPath) : { version: LOCK_VERSION };
    lockAdded = mergeLock(found, runtimeLock(readJson(join(checkoutDir, "deno.lock"))));
    lock = found;
  }
  writeJson(configPath, { ...project, imports: plan.imports });
  if (lockPath && lock) writeJson(lockPath, lock);
  const lines = Object.entries(plan.added).map(([k, v]) => `added "${k}": "${v}"`);
  if (lines.length === 0) lines.push("deno.json already links this checkout");
  lines.push(
    lockPath
      ? `${lockAdded} locked npm entries merged into ${lockPath}`
      : `"lock": false: Cordon's npm packages resolve afresh (not offline, not its tested versions)`,
  );
  for (const w of plan.warnings) lines.push(`note: ${w}`);
  return lines;
}

if (import.meta.main) {
  const checkout = dirname(dirname(fileURLToPath(import.meta.url)));
  const target = resolve(Deno.args[0] ?? Deno.cwd());
  try {
    for (const line of link(target, checkout)) console.log(`cordon link: ${line}`);
  } catch (err) {
    console.error(`cordon link: ${(err as Error).message}`);
    Deno.exit(1);
  }
}
