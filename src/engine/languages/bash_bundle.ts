/**
 * The bash interpreter a bash block runs in: npm `just-bash`, bundled on the
 * host into one self-contained ES module file, because children run with
 * `--no-npm --cached-only` and cannot resolve its imports. The child gets
 * `--allow-read` of that one file and imports it by URL (the guest's
 * `sandbox/guest/bash.ts`).
 *
 * @module
 */
import type { LanguageFiles } from "../../sandbox/languages.ts";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CordonError } from "../../errors.ts";
import { sha256Hex as sha256 } from "../../hash.ts";
import { bundleFile } from "../packages/bundle.ts";

/**
 * Dependencies replaced by empty modules: native compression (zstd, xz), and the engines of the
 * `sqlite3`, `python3` and `js-exec` commands, which need workers and are not offered.
 */
const STUBS = ["@mongodb-js/zstd", "node-liblzma", "sql.js", "quickjs-emscripten"];

/**
 * The child runs with `--deny-env`, where reading `process.env` throws: the bundled packages
 * (minimatch under `ls` and globs, debug, undici) read an empty object instead.
 */
const DEFINE = { "process.env": "{}" };

/** The folder, under a runtime's cache directory, that bash bundles are written to. */
export const BASH_BUNDLE_DIR = "bash";

/** just-bash's Node entry: the one whose filesystems include `ReadWriteFs` over a real directory. */
function entryPath(): string {
  const url = import.meta.resolve("just-bash");
  if (!url.startsWith("file:")) {
    throw new CordonError(
      "package_unavailable",
      `Cannot find just-bash's files to bundle (it resolved to ${url})`,
    );
  }
  return fileURLToPath(url);
}

/** The entry to bundle and the bundle's id, found once per process. */
let source: Promise<{ entry: string; id: string }> | undefined;

async function findSource(): Promise<{ entry: string; id: string }> {
  const entry = entryPath();
  // The entry is dist/bundle/index.js; the manifest two folders up names the version.
  const manifest = await Deno.readTextFile(join(dirname(entry), "..", "..", "package.json"));
  const { name, version } = JSON.parse(manifest) as { name: string; version: string };
  return { entry, id: `${name}@${version}-${(await sha256(manifest)).slice(0, 12)}` };
}

/**
 * The path of the just-bash bundle in `cacheDir` (a runtime's cache directory), made on first
 * use: named by a hash of the package's manifest, written aside and renamed, so concurrent
 * runtimes share it and never read half of it. Fast when it already exists. Throws
 * `package_unavailable` if just-bash does not bundle or the bundle cannot be written.
 */
export async function bashBundle(cacheDir: string): Promise<string> {
  if (!source) {
    source = findSource();
    source.catch(() => source = undefined);
  }
  const { entry, id } = await source;
  const dir = join(cacheDir, BASH_BUNDLE_DIR);
  try {
    return await bundleFile(id, entry, dir, { stubs: STUBS, define: DEFINE });
  } catch (err) {
    if (err instanceof CordonError) throw err;
    throw new CordonError(
      "package_unavailable",
      `Cannot write the bash interpreter's bundle into ${dir}: ${(err as Error).message}`,
      { details: { package: id }, cause: err },
    );
  }
}

/** What a bash child needs: read access to the bundle, whose path its guest takes as an argument. */
export async function bashFiles(cacheDir: string): Promise<LanguageFiles> {
  const path = await bashBundle(cacheDir);
  return { readPaths: [path], args: [`--cordon-bash=${path}`] };
}
