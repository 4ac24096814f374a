import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { GUEST_MODULES, guestEntry } from "../../src/sandbox/guest_files.ts";
import { childEnvironment, spawnTestChild } from "../_helpers/sandbox_children.ts";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/**
 * The guest's roots: its entry, and the bash runner (sandbox/guest/bash.ts), which runs in the
 * child too (the entry imports it once bash blocks are dispatched there).
 */
const GUEST_ROOTS = ["sandbox/guest/entry.ts"];

Deno.test("GUEST_MODULES is exactly the guest's module graph", async () => {
  const graph = new Set<string>();
  for (const root of GUEST_ROOTS) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", join(SRC, root)],
      stdout: "piped",
    }).output();
    const info = JSON.parse(new TextDecoder().decode(out.stdout));
    for (const m of info.modules as { specifier: string }[]) {
      assert.match(m.specifier, /^file:/, "the guest imports nothing remote or from npm");
      graph.add(relative(SRC, fileURLToPath(m.specifier)));
    }
  }
  assert.deepEqual([...graph].sort(), [...GUEST_MODULES].sort());
});

Deno.test("a copy of Cordon loaded over HTTP(S) runs a local copy of its guest", async () => {
  // src/ served over HTTP stands in for JSR.
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname).replace(/^\/src\//, "");
    if (path.includes("..")) return new Response("no", { status: 400 });
    try {
      return new Response(await Deno.readTextFile(join(SRC, path)));
    } catch {
      return new Response("missing", { status: 404 });
    }
  });
  const cache = await Deno.makeTempDir({ prefix: "cordon-guest-" });
  try {
    const src = new URL(`http://127.0.0.1:${server.addr.port}/src/`);
    const entry = await guestEntry(cache, src);
    assert.ok(entry.startsWith(cache));
    for (const m of GUEST_MODULES) {
      const copied = await Deno.readTextFile(join(entry, "../../..", m));
      assert.equal(copied, await Deno.readTextFile(join(SRC, m)), m);
    }
    assert.equal(await guestEntry(cache, src), entry, "the same content maps to the same copy");
    // The copy is a working guest: a real child starts from it and says it is ready.
    const child = await spawnTestChild(await childEnvironment(entry));
    await child.ready;
    assert.equal(child.alive, true);
    child.kill();
    await child.exited;
    // A source that cannot serve the guest is a typed error, not a crash later.
    await assert.rejects(
      guestEntry(cache, new URL(`http://127.0.0.1:${server.addr.port}/nowhere/`)),
      { code: "spawn_failed" },
    );
  } finally {
    await server.shutdown();
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("a local copy runs its guest in place", async () => {
  assert.equal(await guestEntry("/nonexistent"), join(SRC, "sandbox/guest/entry.ts"));
});
