import assert from "node:assert/strict";
import { hashToken } from "../../../src/service/access/keys.ts";
import { loadConfigFile } from "../../../src/service/server/config.ts";
import { startService } from "../../../src/service/server/server.ts";
import { FIXTURE_CONFIG, openService } from "../_service.ts";

const KEY = "cordon_first_contact_key_0123456789";

Deno.test("a server with keys answers 401 with WWW-Authenticate: Bearer, on the API and on /mcp", async () => {
  await using t = await openService({
    auth: "keys",
    keys: [{ name: "k", sha256: await hashToken(KEY), scopes: ["execute"], namespace: "k" }],
  });
  for (const [method, path, body] of [["GET", "/v1/executions"], ["POST", "/mcp", {}]] as const) {
    const r = await t.call(method, path, body);
    assert.equal(r.status, 401, path);
    assert.equal(r.headers.get("www-authenticate"), 'Bearer realm="cordon"', path);
    assert.equal(r.json.error.code, "unauthorized");
  }
  const ok = await t.call("GET", "/v1/executions", undefined, { authorization: `Bearer ${KEY}` });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("www-authenticate"), null);
});

Deno.test("/openapi.json names its server and documents /mcp, the console and the executor's routes", async () => {
  await using t = await openService();
  const doc = (await t.call("GET", "/openapi.json")).json;
  assert.deepEqual(doc.servers, [{ url: t.service.url }]);
  assert.ok(doc.paths["/mcp"].post, "/mcp");
  assert.deepEqual(doc.paths["/"].get.security, [], "the console page needs no key");
  assert.equal((await t.call("GET", "/")).status, 200);
  for (const p of ["/v1/code", "/v1/programs/run", "/v1/programs/{id}/poll"]) {
    assert.ok(doc.paths[p], p);
  }
});

Deno.test("a taken port is a one-line typed error naming it", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const dataDir = await Deno.makeTempDir({ prefix: "cordon-port-" });
  try {
    const config = { ...(await loadConfigFile(FIXTURE_CONFIG)), host: "127.0.0.1", port, dataDir };
    await assert.rejects(startService(config), (err: Error & { code?: string }) => {
      assert.equal(err.code, "invalid_config");
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port} is taken`));
      assert.equal(err.message.includes("\n"), false);
      return true;
    });
  } finally {
    taken.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
