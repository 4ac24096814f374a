import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRuntime } from "../../../mod.ts";
import { bundledGuest, GUEST_BUNDLE_ENTRY } from "../../../src/engine/packages/guest_bundle.ts";
import { GUEST_MODULES } from "../../../src/sandbox/guest_files.ts";
import { childProcesses } from "../../_helpers/processes.ts";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));
const ENTRY = join(SRC, GUEST_MODULES[0]);

/** A copy of the guest's modules under a temporary root, `change` applied to each text. */
async function guestCopy(change: (module: string, text: string) => string = (_m, t) => t) {
  const root = await Deno.makeTempDir({ prefix: "cordon-guest-copy-" });
  for (const m of GUEST_MODULES) {
    await Deno.mkdir(dirname(join(root, m)), { recursive: true });
    await Deno.writeTextFile(join(root, m), change(m, await Deno.readTextFile(join(SRC, m))));
  }
  return { root, entry: join(root, GUEST_MODULES[0]) };
}

Deno.test("bundledGuest() builds one file per content of the guest's modules, at the guest's depth", async () => {
  const cache = await Deno.makeTempDir({ prefix: "cordon-guest-bundle-" });
  const same = await guestCopy();
  const changed = await guestCopy((m, t) => m.endsWith("entry.ts") ? `${t}\n// changed\n` : t);
  try {
    const path = await bundledGuest(ENTRY, cache);
    assert.ok(path.startsWith(cache) && path.endsWith(GUEST_BUNDLE_ENTRY), path);
    const text = await Deno.readTextFile(path);
    assert.doesNotMatch(
      text,
      /^(import|export)\b.*["'];?$/m,
      "the bundle imports or exports nothing",
    );
    const { mtime } = await Deno.stat(path);
    // The same modules elsewhere map to the same file, found, not built again.
    assert.equal(await bundledGuest(same.entry, cache), path);
    assert.deepEqual((await Deno.stat(path)).mtime, mtime);
    // Other content, another file.
    const other = await bundledGuest(changed.entry, cache);
    assert.notEqual(other, path);
    assert.match(await Deno.readTextFile(other), /changed/);
  } finally {
    for (const dir of [cache, same.root, changed.root]) await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bundledGuest() refuses a guest that imports a module GUEST_MODULES does not list", async () => {
  const cache = await Deno.makeTempDir({ prefix: "cordon-guest-bundle-" });
  const copy = await guestCopy((m, t) => m.endsWith("entry.ts") ? `import "./stray.ts";\n${t}` : t);
  try {
    await Deno.writeTextFile(join(copy.root, "sandbox/guest/stray.ts"), "export {};\n");
    await assert.rejects(bundledGuest(copy.entry, cache), /stray\.ts is not one of the guest's/);
    await assert.rejects(bundledGuest("/elsewhere/main.ts", cache), /not a guest entry/);
  } finally {
    for (const dir of [cache, copy.root]) await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a runtime's children run the bundled guest, and its frames name no host path", async () => {
  await using rt = await createRuntime({ db: ":memory:", typecheck: "off", pool: { size: 1 } });
  await rt.warm();
  const children = (await childProcesses()).filter((p) => p.cmd.includes("--deny-read"));
  assert.ok(
    children.some((p) => /\/bundle-[0-9a-f]+\/sandbox\/guest\/entry\.js$/.test(p.cmd)),
    JSON.stringify(children.map((p) => p.cmd.split(" ").at(-1))),
  );
  const out = await rt.execute({ code: "return new Error('probe').stack" });
  assert.equal(out.status, "completed");
  const stack = String(out.result);
  assert.match(stack, /at run \(cordon:guest\/sandbox\/guest\/entry\.js:\d+:\d+\)/);
  assert.doesNotMatch(stack, /bundle-|\/tmp\/|file:/);
});
