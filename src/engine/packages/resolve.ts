/**
 * Node's module resolution over a `node_modules` tree, as far as bundling a
 * package for the sandbox needs it: `exports` (conditions, subpaths, `*`
 * patterns), `browser`/`module`/`main`, file extensions and directory
 * indexes. esbuild's browser build has no file system, so its plugin asks
 * here. Browser conditions come first: the child has web globals and no
 * file, network or environment access, so a package's web build is the
 * one that works there.
 *
 * @module
 */
import { dirname, join } from "node:path";

/** Conditions matched in `exports`, besides `default`. */
export const CONDITIONS: readonly string[] = ["browser", "import", "module", "worker"];
const MAIN_FIELDS = ["browser", "module", "main"] as const;
const EXTENSIONS = ["", ".js", ".mjs", ".cjs", ".json"];
const INDEXES = ["index.js", "index.mjs", "index.cjs", "index.json"];

type Exports = string | null | Exports[] | { [key: string]: Exports };

interface PackageJson {
  name?: string;
  exports?: Exports;
  browser?: unknown;
  module?: unknown;
  main?: unknown;
}

const manifests = new Map<string, PackageJson | null>();

async function readManifest(dir: string): Promise<PackageJson | null> {
  if (manifests.has(dir)) return manifests.get(dir)!;
  let json: PackageJson | null = null;
  try {
    json = JSON.parse(await Deno.readTextFile(join(dir, "package.json")));
  } catch {
    json = null;
  }
  manifests.set(dir, json);
  return json;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** A file or directory path, as Node completes it (`./x` → `./x.js`, `./dir/index.js`). */
export async function resolveFile(path: string): Promise<string | undefined> {
  for (const ext of EXTENSIONS) {
    if (await isFile(path + ext)) return await Deno.realPath(path + ext);
  }
  const manifest = await readManifest(path);
  if (manifest) {
    const main = MAIN_FIELDS.map((f) => manifest[f]).find((v) => typeof v === "string");
    if (typeof main === "string") {
      const got = await resolveFile(join(path, main));
      if (got) return got;
    }
  }
  for (const index of INDEXES) {
    if (await isFile(join(path, index))) return await Deno.realPath(join(path, index));
  }
  return undefined;
}

function target(value: Exports, star: string | undefined): string | undefined {
  if (typeof value === "string") {
    if (!value.startsWith("./")) return undefined;
    return star === undefined ? value : value.replaceAll("*", star);
  }
  if (Array.isArray(value)) {
    for (const v of value) {
      const got = target(v, star);
      if (got !== undefined) return got;
    }
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, v] of Object.entries(value)) {
    if (key === "default" || CONDITIONS.includes(key)) {
      const got = target(v, star);
      if (got !== undefined) return got;
    }
  }
  return undefined;
}

/** The file an `exports` field gives for `subpath` (`.` or `./x`), relative to the package. */
export function matchExports(exports: Exports, subpath: string): string | undefined {
  const map = typeof exports === "object" && exports !== null && !Array.isArray(exports) &&
      Object.keys(exports).some((k) => k.startsWith("."))
    ? exports
    : { ".": exports };
  if (Object.hasOwn(map, subpath)) return target(map[subpath], undefined);
  let best: { key: string; star: string } | undefined;
  for (const key of Object.keys(map)) {
    const at = key.indexOf("*");
    if (at === -1) continue;
    const prefix = key.slice(0, at);
    const suffix = key.slice(at + 1);
    if (
      subpath.startsWith(prefix) && subpath.endsWith(suffix) &&
      subpath.length >= key.length - 1 && (!best || prefix.length > best.key.indexOf("*"))
    ) {
      best = { key, star: subpath.slice(prefix.length, subpath.length - suffix.length) };
    }
  }
  return best ? target(map[best.key], best.star) : undefined;
}

/** The entry file of `subpath` in the package at `pkgDir`, or undefined if it exports none. */
export async function resolveInPackage(
  pkgDir: string,
  subpath: string,
): Promise<string | undefined> {
  const manifest = await readManifest(pkgDir);
  if (manifest?.exports !== undefined) {
    const rel = matchExports(manifest.exports, subpath);
    return rel === undefined ? undefined : await resolveFile(join(pkgDir, rel));
  }
  return await resolveFile(subpath === "." ? pkgDir : join(pkgDir, subpath));
}

/** A bare specifier (`lodash/fp`) from a file, looked up in `node_modules` folders above it. */
export async function resolveBare(
  specifier: string,
  fromDir: string,
): Promise<string | undefined> {
  const parts = specifier.split("/");
  const nameParts = specifier.startsWith("@") ? 2 : 1;
  const name = parts.slice(0, nameParts).join("/");
  const subpath = parts.length > nameParts ? `./${parts.slice(nameParts).join("/")}` : ".";
  for (let dir = fromDir;; dir = dirname(dir)) {
    if (!dir.endsWith("/node_modules")) {
      const pkgDir = join(dir, "node_modules", name);
      if (await readManifest(pkgDir) || await resolveFile(pkgDir)) {
        return await resolveInPackage(pkgDir, subpath);
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}
