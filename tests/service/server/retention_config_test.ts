/**
 * `retention` in the service's config file reaches the runtime; a typo in it is refused.
 */
import assert from "node:assert/strict";
import { CordonError } from "../../../src/errors.ts";
import { loadConfigFile } from "../../../src/service/server/config.ts";
import { runtimeOptionsOf } from "../../../src/service/server/server.ts";

async function withConfig(value: unknown, fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cordon-retention-config-" });
  try {
    await Deno.writeTextFile(`${dir}/cordon.config.json`, JSON.stringify(value));
    await fn(`${dir}/cordon.config.json`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("config retention: the file's settings reach the runtime; unknown fields are refused", async () => {
  const retention = { executionsMaxAgeMs: 86_400_000, executionsMaxPerNamespace: 1_000 };
  await withConfig({ retention }, async (path) => {
    const options = await runtimeOptionsOf(await loadConfigFile(path));
    assert.deepEqual(options.retention, retention);
  });
  for (const bad of [{ executionsMaxAge: 1 }, { executionsMaxAgeMs: 0 }]) {
    await withConfig({ retention: bad }, async (path) => {
      await assert.rejects(
        loadConfigFile(path),
        (err: unknown) => err instanceof CordonError && err.code === "invalid_config",
        JSON.stringify(bad),
      );
    });
  }
});
