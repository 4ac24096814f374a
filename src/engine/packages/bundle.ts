/**
 * Bundles one entry of an installed npm package (`date-fns`,
 * `date-fns/addDays`) into a single self-contained ES module with
 * esbuild-wasm, once per `name@version` and subpath: kept in memory, and
 * on disk keyed by the package, the subpath and the esbuild version, so a
 * restarted host does not bundle again.
 *
 * esbuild's browser build runs in this process (`worker: false`) and has no
 * file system: the plugin below resolves with `resolve.ts` and reads the
 * files. Node built-ins a package imports stay imports (`node:crypto`); the
 * child's permissions still deny every file, network and environment access.
 *
 * @module
 */
import { dirname, join } from "node:path";
import * as esbuild from "esbuild-wasm/esm/browser.js";
import { CordonError } from "../../errors.ts";
import { resolveBare, resolveFile, resolveInPackage } from "./resolve.ts";
import { sha256Hex as sha256 } from "../../hash.ts";

/** Bumped when the bundling below changes, so bundles on disk from before are not reused. */
const BUNDLE_FORMAT = 1;

/** What bundling has done in this process: the signals tests and benchmarks read. */
export interface BundleStats {
  /** esbuild builds run (each is one package entry bundled from its files). */
  builds: number;
  /** Bundles read from the disk cache instead of built. */
  diskHits: number;
  /** Bundles served from memory. */
  memoryHits: number;
}

const stats: BundleStats = { builds: 0, diskHits: 0, memoryHits: 0 };
const bundles = new Map<string, Promise<string>>();
let ready: Promise<void> | undefined;

/** A copy of this process's bundle counters. */
export function bundleStats(): BundleStats {
  return { ...stats };
}

/** The esbuild version bundles are made with. */
export const ESBUILD_VERSION: string = esbuild.version;

/** Loads esbuild's wasm once per process. */
function initialize(): Promise<void> {
  ready ??= (async () => {
    const wasmUrl = new URL("../esbuild.wasm", import.meta.resolve("esbuild-wasm/esm/browser.js"));
    const bytes = wasmUrl.protocol === "file:"
      ? await Deno.readFile(wasmUrl)
      : new Uint8Array(await (await fetch(wasmUrl)).arrayBuffer());
    await esbuild.initialize({ wasmModule: await WebAssembly.compile(bytes), worker: false });
  })();
  ready.catch(() => ready = undefined);
  return ready;
}

/** Where a bundle lives:  readable name, then a hash of everything the bundle depends on. */
async function bundlePath(cacheDir: string, id: string, salt = ""): Promise<string> {
  const key = `${id}|esbuild@${ESBUILD_VERSION}|format ${BUNDLE_FORMAT}${salt && `|${salt}`}`;
  const readable = id.replace(/[^A-Za-z0-9@._-]+/g, "+").slice(0, 80);
  return join(cacheDir, `${readable}.${(await sha256(key)).slice(0, 24)}.js`);
}

/**
 * The bundle of `subpath` of the package installed at `pkgDir`, as module
 * source. `id` names it (`date-fns@4.1.0/addDays`) for the caches and
 * messages. Throws `import_not_allowed` if the package does not export the
 * subpath, `package_unavailable` if its files do not bundle.
 */
export function bundlePackage(
  id: string,
  pkgDir: string,
  subpath: string,
  cacheDir: string,
): Promise<string> {
  const hit = bundles.get(id);
  if (hit) {
    stats.memoryHits++;
    return hit;
  }
  const made = loadOrBuild(id, pkgDir, subpath, cacheDir);
  bundles.set(id, made);
  made.catch(() => bundles.delete(id));
  return made;
}

async function loadOrBuild(
  id: string,
  pkgDir: string,
  subpath: string,
  cacheDir: string,
): Promise<string> {
  const path = await bundlePath(cacheDir, id);
  try {
    const code = await Deno.readTextFile(path);
    stats.diskHits++;
    return code;
  } catch {
    // Not bundled yet on this disk.
  }
  const entry = await resolveInPackage(pkgDir, subpath);
  if (entry === undefined) {
    throw new CordonError(
      "import_not_allowed",
      `Cannot import "${
        id.replace(/@[^@/]+(?=\/|$)/, "")
      }": the package does not export "${subpath}"`,
      { details: { package: id, subpath } },
    );
  }
  const code = await build(id, entry);
  await writeAside(path, code);
  return code;
}

/** Writes `code` to `path` aside and renames it, so a reader in another process never sees half a bundle. */
export async function writeAside(path: string, code: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(tmp, code);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
}

const files = new Map<string, Promise<string>>();

/** Options for {@link bundleFile}. */
export interface BundleFileOptions {
  /**
   * Packages (bare names, `sql.js`) replaced by an empty CommonJS module: optional native or
   * worker-only dependencies a bundle cannot use in the sandbox. Their users fail when called.
   */
  stubs?: readonly string[];
  /** More of esbuild's `define` (`{ "process.env": "{}" }`): expressions replaced as it bundles. */
  define?: Readonly<Record<string, string>>;
}

/**
 * Bundles the module file `entry` and everything it imports into one
 * self-contained ES module file in `cacheDir`, and returns its path. `id`
 * names it (`just-bash@3.4.2/node`): the file is named by a hash of the id,
 * the esbuild version and the bundle format, so it is built once per disk
 * and a later call only finds it. Node built-ins stay `node:` imports.
 * Throws `package_unavailable` if the files do not bundle.
 */
export function bundleFile(
  id: string,
  entry: string,
  cacheDir: string,
  options: BundleFileOptions = {},
): Promise<string> {
  const stubs = [...options.stubs ?? []].sort();
  const define = options.define ?? {};
  const salt = JSON.stringify({ stubs, define: Object.entries(define).sort() });
  const key = `${cacheDir}\0${id}\0${salt}`;
  let made = files.get(key);
  if (made) {
    stats.memoryHits++;
    return made;
  }
  made = (async () => {
    const path = await bundlePath(cacheDir, id, salt);
    try {
      if ((await Deno.stat(path)).isFile) {
        stats.diskHits++;
        return path;
      }
    } catch {
      // Not bundled yet on this disk.
    }
    await writeAside(path, await build(id, entry, { stubs, define }));
    return path;
  })();
  files.set(key, made);
  made.catch(() => files.delete(key));
  return made;
}

const NODE_BUILTIN =
  /^(?:node:)?(?:assert|buffer|crypto|events|path|process|stream|string_decoder|url|util|zlib|fs|os|http|https|net|tls|child_process|worker_threads|async_hooks|perf_hooks|timers|querystring|punycode|readline|vm|dns|module)(?:\/.*)?$/;

const loaderOf = (path: string): esbuild.Loader => path.endsWith(".json") ? "json" : "js";

/** The package name of a bare specifier (`@scope/name/x` → `@scope/name`). */
const packageOf = (spec: string) =>
  spec.split("/").slice(0, spec.startsWith("@") ? 2 : 1).join("/");

/**
 * `entry` bundled through `plugin` (which resolves and loads every file) into the text of one
 * ES module, with what every Cordon bundle shares and `extra`.
 */
export async function esbuildModule(
  entry: string,
  plugin: esbuild.Plugin,
  extra: esbuild.BuildOptions = {},
): Promise<string> {
  await initialize();
  const out = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "esnext",
    charset: "utf8",
    logLevel: "silent",
    plugins: [plugin],
    ...extra,
  });
  // `write: false` above: esbuild hands the files back.
  return out.outputFiles![0].text;
}

async function build(
  id: string,
  entry: string,
  { stubs = [], define = {} }: BundleFileOptions = {},
): Promise<string> {
  stats.builds++;
  const plugin: esbuild.Plugin = {
    name: "cordon-packages",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === "entry-point") return { path: args.path, namespace: "pkg" };
        if (stubs.includes(packageOf(args.path))) return { path: args.path, namespace: "stub" };
        if (NODE_BUILTIN.test(args.path)) {
          return {
            path: args.path.startsWith("node:") ? args.path : `node:${args.path}`,
            external: true,
          };
        }
        const got = /^\.{0,2}\//.test(args.path)
          ? await resolveFile(
            args.path.startsWith("/") ? args.path : join(args.resolveDir, args.path),
          )
          : await resolveBare(args.path, args.resolveDir);
        if (got === undefined) return { errors: [{ text: `Cannot resolve "${args.path}"` }] };
        return { path: got, namespace: "pkg" };
      });
      b.onLoad({ filter: /.*/, namespace: "pkg" }, async (args) => ({
        contents: await Deno.readFile(args.path),
        loader: loaderOf(args.path),
        resolveDir: dirname(args.path),
      }));
      b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
        contents: "module.exports = {};",
        loader: "js",
      }));
    },
  };
  try {
    return await esbuildModule(entry, plugin, {
      minifyWhitespace: true,
      minifySyntax: true,
      legalComments: "eof",
      define: { "process.env.NODE_ENV": '"production"', ...define },
    });
  } catch (err) {
    const first = (err as { errors?: { text: string }[] }).errors?.[0]?.text;
    throw new CordonError(
      "package_unavailable",
      `Cannot bundle ${id}: ${first ?? (err instanceof Error ? err.message : String(err))}`,
      { details: { package: id } },
    );
  }
}
