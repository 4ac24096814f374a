import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "acorn";
import { bundleStats } from "../../../src/engine/packages/bundle.ts";
import { BASH_BUNDLE_DIR, bashBundle } from "../../../src/engine/languages/mod.ts";

const MOD = new URL("../../../src/engine/languages/mod.ts", import.meta.url).href;

/** `bashBundle(cacheDir)` in a new process: its path, time and this process's bundle counters. */
async function inNewProcess(cacheDir: string) {
  const code = `import { bashBundle } from ${JSON.stringify(MOD)};
    import { bundleStats } from ${
    JSON.stringify(new URL("../../../src/engine/packages/bundle.ts", import.meta.url).href)
  };
    const t = performance.now();
    const path = await bashBundle(${JSON.stringify(cacheDir)});
    console.log(JSON.stringify({ path, ms: performance.now() - t, stats: bundleStats() }));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)) as {
    path: string;
    ms: number;
    stats: { builds: number; diskHits: number };
  };
}

Deno.test("bashBundle() builds one self-contained module once, written aside and renamed, and finds it again", async () => {
  const cache = await Deno.makeTempDir({ prefix: "cordon-bash-bundle-" });
  try {
    const before = bundleStats().builds;
    // Concurrent first calls share one build.
    const [path, again] = await Promise.all([bashBundle(cache), bashBundle(cache)]);
    assert.equal(again, path);
    assert.equal(bundleStats().builds - before, 1);
    assert.ok(path.startsWith(join(cache, BASH_BUNDLE_DIR) + "/"), path);
    assert.match(path, /just-bash@3\.4\.2-[0-9a-f]{12}\.[0-9a-f]{24}\.js$/);
    const names = [];
    for await (const entry of Deno.readDir(join(cache, BASH_BUNDLE_DIR))) names.push(entry.name);
    assert.deepEqual(names, [path.split("/").at(-1)], "no half-written file is left beside it");
    // Self-contained: a child without npm resolves its imports, so only node: built-ins remain.
    const code = await Deno.readTextFile(path);
    const specifiers = new Set<string>();
    const walk = (node: unknown): void => {
      if (!node || typeof node !== "object") return;
      const n = node as { type?: string; source?: { value?: unknown } };
      if (
        (n.type === "ImportDeclaration" || n.type === "ImportExpression" ||
          n.type === "ExportAllDeclaration" || n.type === "ExportNamedDeclaration") &&
        typeof n.source?.value === "string"
      ) specifiers.add(n.source.value);
      for (const value of Object.values(node)) {
        if (value && typeof value === "object") walk(value);
      }
    };
    walk(parse(code, { ecmaVersion: "latest", sourceType: "module" }));
    assert.deepEqual([...specifiers].filter((s) => !s.startsWith("node:")), []);
    assert.ok(
      specifiers.has("node:fs"),
      "its ReadWriteFs is in (the Node entry, not the browser's)",
    );
    assert.match(code, /ReadWriteFs/);
    // A restarted host finds it on disk: no build, and fast.
    const restarted = await inNewProcess(cache);
    assert.equal(restarted.path, path);
    assert.deepEqual([restarted.stats.builds, restarted.stats.diskHits], [0, 1]);
    assert.ok(restarted.ms < 1_000, `found in ${restarted.ms} ms`);
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("bashBundle() into a folder it cannot write is a typed error", async () => {
  const file = await Deno.makeTempFile();
  try {
    // A file where the cache folder should be: nothing can be made under it.
    await assert.rejects(bashBundle(file), { code: "package_unavailable" });
  } finally {
    await Deno.remove(file);
  }
});
