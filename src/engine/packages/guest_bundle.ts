/**
 * The sandbox guest as one JavaScript file. A child that loads the guest's
 * {@link GUEST_MODULES} (26 TypeScript modules when measured) one by one spends about 3 ms
 * more CPU booting than one that loads them bundled (measured: 25.5–27.5 ms
 * against 22.5–23.4 ms; an empty script takes 17.5), and every run of a
 * pool costs one boot. The bundle is built with esbuild once per content of
 * those modules and kept on disk under a name made from their hash, at the
 * same depth as the guest's own `sandbox/guest/entry.ts`, so the child names
 * its frames `cordon:guest/…` as before. Only the listed modules are bundled:
 * an import of anything else fails the build, and the runtime falls back to
 * the modules themselves.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type * as esbuild from "esbuild-wasm/esm/browser.js";
import { sha256Hex as sha256 } from "../../hash.ts";
import { GUEST_MODULES } from "../../sandbox/guest_files.ts";
import { ESBUILD_VERSION, esbuildModule, writeAside } from "./bundle.ts";

/** Bumped when the bundling below changes, so bundles on disk from before are not reused. */
const GUEST_BUNDLE_FORMAT = 1;

/** Where the bundle's entry sits inside its folder (the guest's own depth: `../../` is the root). */
export const GUEST_BUNDLE_ENTRY = "sandbox/guest/entry.js";

const made = new Map<string, Promise<string>>();

/**
 * The path of the bundled guest for the guest entry `entry` (a local
 * `sandbox/guest/entry.ts`), built into `cacheDir` if it is not there yet.
 * Rejects when the modules cannot be read or bundled.
 */
export function bundledGuest(entry: string, cacheDir: string): Promise<string> {
  const key = `${entry}\0${cacheDir}`;
  let path = made.get(key);
  if (!path) {
    path = findOrBuild(entry, cacheDir);
    made.set(key, path);
    path.catch(() => made.delete(key));
  }
  return path;
}

async function findOrBuild(entry: string, cacheDir: string): Promise<string> {
  const root = entry.slice(0, entry.length - GUEST_MODULES[0].length);
  if (join(root, GUEST_MODULES[0]) !== entry) {
    throw new Error(`${entry} is not a guest entry (${GUEST_MODULES[0]})`);
  }
  const sources = new Map<string, string>();
  await Promise.all(GUEST_MODULES.map(async (m) => {
    sources.set(join(root, m), await Deno.readTextFile(join(root, m)));
  }));
  const hash = await sha256(
    [
      `esbuild@${ESBUILD_VERSION}`,
      `format ${GUEST_BUNDLE_FORMAT}`,
      ...GUEST_MODULES.map((m) => `${m}\0${sources.get(join(root, m))}`),
    ].join("\0"),
  );
  const path = join(cacheDir, `bundle-${hash.slice(0, 24)}`, GUEST_BUNDLE_ENTRY);
  try {
    if ((await Deno.stat(path)).isFile) return path;
  } catch {
    // Not bundled yet on this disk.
  }
  await writeAside(path, await build(entry, sources));
  return path;
}

async function build(entry: string, sources: Map<string, string>): Promise<string> {
  const plugin: esbuild.Plugin = {
    name: "cordon-guest",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        const path = args.kind === "entry-point" ? args.path : join(args.resolveDir, args.path);
        if (!sources.has(path)) {
          return { errors: [{ text: `${args.path} is not one of the guest's modules` }] };
        }
        return { path, namespace: "guest" };
      });
      b.onLoad({ filter: /.*/, namespace: "guest" }, (args) => ({
        contents: sources.get(args.path),
        loader: "ts",
        resolveDir: dirname(args.path),
      }));
    },
  };
  return await esbuildModule(entry, plugin, { legalComments: "none" });
}
