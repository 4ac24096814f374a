/**
 * What packages inside the sandbox cost: the first install and bundle of a
 * package (cold npm cache, then warm npm cache with no bundle), a bundle read
 * back from disk, and the per-execution preparation of a script with one
 * import next to one without. Prints JSON. Run alone:
 *
 * ```sh
 * deno run --allow-all bench/packages.ts
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { PackageSet, packageStats } from "../src/engine/packages/mod.ts";
import { bundlePackage } from "../src/engine/packages/bundle.ts";
import { installPackage } from "../src/engine/packages/install.ts";
import { prepareSource } from "../src/engine/source/source.ts";

const PACKAGES: Record<string, string> = { ms: "2.1.3", nanoid: "5.1.5", "date-fns": "4.1.0" };

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

async function timed(f: () => unknown): Promise<number> {
  const t = performance.now();
  await f();
  return Math.round((performance.now() - t) * 10) / 10;
}

const scratch = await Deno.makeTempDir({ prefix: "cordon-packages-bench-" });
const set = (root: string, denoDir: string): PackageSet =>
  new PackageSet({ packages: PACKAGES, root, denoPath: Deno.execPath(), denoDir });
const coldNpm = set(join(scratch, "a"), join(scratch, "deno-cold"));
const fromDisk = set(join(scratch, "a"), join(scratch, "deno-cold"));
const first: Record<string, unknown> = {};
for (const [name, version] of Object.entries(PACKAGES)) {
  const code = `import * as p from "${name}";\nreturn Object.keys(p).length`;
  // Install (cold npm cache: registry downloads) and the first esbuild bundle.
  const coldMs = await timed(() => coldNpm.prepare(code));
  const pkgDir = await installPackage(name, version, {
    root: join(scratch, "a", "installs"),
    denoPath: Deno.execPath(),
    denoDir: join(scratch, "deno-cold"),
  });
  // The bundle alone, under a new id and cache folder so nothing is reused.
  const fresh = join(scratch, "bundles-again");
  const bundleMs = await timed(() => bundlePackage(`${name}@${version}#bench`, pkgDir, ".", fresh));
  // A fresh install folder over the npm cache the first one filled (no download).
  const installMs = await timed(() =>
    installPackage(name, version, {
      root: join(scratch, "b"),
      denoPath: Deno.execPath(),
      denoDir: join(scratch, "deno-cold"),
    })
  );
  first[name] = {
    coldInstallAndBundleMs: coldMs,
    esbuildBundleMs: bundleMs,
    warmInstallMs: installMs,
  };
}
const samples = 300;
const perExec = (make: (i: number) => string, s: PackageSet) => async () => {
  const xs: number[] = [];
  for (let i = 0; i < samples; i++) {
    const code = make(i);
    const t = performance.now();
    await s.prepare(code);
    xs.push(performance.now() - t);
  }
  return { p50: percentile(xs, 0.5), p95: percentile(xs, 0.95) };
};
const newScript = (i: number) => `import ms from "ms";\nconst n: number = ${i};\nreturn ms(n)`;
const summary = {
  esbuild: (await import("../src/engine/packages/mod.ts")).ESBUILD_VERSION,
  firstBundle: first,
  perExecutionMs: {
    oneImportNewCode: await perExec(newScript, fromDisk)(),
    oneImportSameCode: await perExec(() => newScript(1), fromDisk)(),
    noImportNewCode: await perExec((i) => `const n: number = ${i};\nreturn n * 2`, fromDisk)(),
    prepareSourceNoImport: (() => {
      const xs: number[] = [];
      for (let i = 0; i < samples; i++) {
        const t = performance.now();
        prepareSource(`const n: number = ${i + samples};\nreturn n * 2`);
        xs.push(performance.now() - t);
      }
      return { p50: percentile(xs, 0.5), p95: percentile(xs, 0.95) };
    })(),
  },
  bundleBytes: Object.fromEntries(
    await Promise.all(
      Object.keys(PACKAGES).map(async (name) => {
        const p = await fromDisk.prepare(`import * as p from "${name}";\nreturn p`);
        return [name, p.module.length];
      }),
    ),
  ),
  stats: packageStats(),
};
console.log(JSON.stringify(summary, null, 2));
await Deno.remove(scratch, { recursive: true });
