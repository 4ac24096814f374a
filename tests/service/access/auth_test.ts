import assert from "node:assert/strict";
import { openService } from "../_service.ts";
import { hashToken } from "../../../src/service/access/keys.ts";
import { startService } from "../../../src/service/server/server.ts";

Deno.test("auth: keys are checked, scoped, and bound to a namespace", async () => {
  await using t = await openService();
  // No keys yet: a local caller acts without one.
  assert.equal((await t.call("GET", "/v1/executions")).status, 200);
  const keys = t.service.keys;
  const acme = await keys.create({ name: "acme", scopes: ["execute"], namespace: "acme" });
  const globex = await keys.create({ name: "globex", scopes: ["execute"], namespace: "globex" });
  const approver = await keys.create({ name: "ops", scopes: ["approve"], namespace: "acme" });
  const admin = await keys.create({ name: "root", scopes: ["admin"] });
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  // Keys exist now (the check is cached for two seconds).
  await new Promise((r) => setTimeout(r, 2_100));

  const anonymous = await t.call("GET", "/v1/executions");
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.json.error.code, "unauthorized");
  const forged = await t.call("GET", "/v1/executions", undefined, as("cordon_forged_key_value_x"));
  assert.equal(forged.status, 401);
  assert.equal((await t.call("GET", "/healthz")).status, 200, "health needs no key");
  assert.equal((await t.call("GET", "/openapi.json")).status, 200);

  const a = await t.call(
    "POST",
    "/v1/executions",
    { code: `return await mail.send({ to: "x" })` },
    as(acme.token),
  );
  assert.equal(a.json.status, "paused");
  const b = await t.call("POST", "/v1/executions", { code: "return 2" }, as(globex.token));
  assert.equal(b.json.status, "completed");

  // A key sees its own namespace only; others' executions do not exist for it.
  const mine = await t.call("GET", "/v1/executions", undefined, as(acme.token));
  assert.deepEqual(mine.json.items.map((e: { executionId: string }) => e.executionId), [
    a.json.executionId,
  ]);
  const theirs = await t.call(
    "GET",
    `/v1/executions/${b.json.executionId}`,
    undefined,
    as(acme.token),
  );
  assert.equal(theirs.status, 404);
  const other = await t.call("GET", "/v1/executions?namespace=globex", undefined, as(acme.token));
  assert.equal(other.status, 403);
  assert.equal(other.json.error.code, "forbidden");
  const pretend = await t.call(
    "POST",
    "/v1/executions",
    { code: "return 1", namespace: "globex" },
    as(acme.token),
  );
  assert.equal(pretend.status, 403);

  // Scopes: execute cannot approve; approve can, in its namespace.
  const denied = await t.call(
    "POST",
    `/v1/executions/${a.json.executionId}/approve`,
    {},
    as(acme.token),
  );
  assert.equal(denied.status, 403);
  assert.equal(denied.json.error.details.needs, "approve");
  const runAsApprover = await t.call(
    "POST",
    "/v1/executions",
    { code: "return 1" },
    as(approver.token),
  );
  assert.equal(runAsApprover.status, 403);
  const pending = await t.call("GET", "/v1/pending", undefined, as(approver.token));
  assert.equal(pending.json.items.length, 1);
  const approved = await t.call(
    "POST",
    `/v1/executions/${a.json.executionId}/approve`,
    {},
    as(approver.token),
  );
  assert.equal(approved.json.status, "completed");

  // Snippets are per namespace too.
  const saved = await t.call("POST", "/v1/snippets", {
    name: "two",
    executionId: b.json.executionId,
    description: "Returns two",
  }, as(globex.token));
  assert.equal(saved.status, 201);
  assert.equal((await t.call("GET", "/v1/snippets/two", undefined, as(acme.token))).status, 404);
  const stolen = await t.call("POST", "/v1/snippets", {
    name: "mine",
    executionId: b.json.executionId,
    description: "Not mine",
  }, as(acme.token));
  assert.equal(stolen.status, 404);

  // Logs follow the execution's namespace.
  const logRef =
    (await t.call("GET", `/v1/executions/${b.json.executionId}`, undefined, as(globex.token)))
      .json.logRef;
  assert.equal((await t.call("GET", `/v1/logs/${logRef}`, undefined, as(acme.token))).status, 404);

  // Admin sees every namespace and may pick one.
  const all = await t.call("GET", "/v1/executions", undefined, as(admin.token));
  assert.equal(all.json.items.length, 2);
  const globexOnly = await t.call(
    "GET",
    "/v1/executions?namespace=globex",
    undefined,
    as(admin.token),
  );
  assert.equal(globexOnly.json.items.length, 1);

  // Revoked keys stop working at once.
  assert.equal(await keys.revoke((await keys.list()).find((k) => k.name === "globex")!.id), true);
  assert.equal((await t.call("GET", "/v1/executions", undefined, as(globex.token))).status, 401);
  // x-api-key works as well as the bearer header.
  assert.equal(
    (await t.call("GET", "/v1/executions", undefined, { "x-api-key": acme.token })).status,
    200,
  );
});

Deno.test("auth: keys from the config file, by hash; auth 'keys' needs one even locally", async () => {
  const token = "cordon_config_key_for_the_tests_0123456789";
  await using t = await openService({
    auth: "keys",
    keys: [{ name: "ci", sha256: await hashToken(token), scopes: ["execute"], namespace: "ci" }],
  });
  assert.equal((await t.call("GET", "/v1/executions")).status, 401);
  const r = await t.call("POST", "/v1/executions", { code: "return 1" }, {
    authorization: `Bearer ${token}`,
  });
  assert.equal(r.json.status, "completed");
  assert.equal((await t.service.runtime.execution(r.json.executionId))?.namespace, "ci");
});

Deno.test("auth: without keys only loopback Host headers are served (DNS rebinding)", async () => {
  await using t = await openService();
  // fetch() will not send a foreign Host header, so speak HTTP/1.1 over a socket.
  const raw = async (host: string) => {
    using conn = await Deno.connect({ hostname: "127.0.0.1", port: t.service.port });
    await conn.write(
      new TextEncoder().encode(
        `GET /v1/executions HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ),
    );
    const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
    return { status: Number(text.split(" ")[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) };
  };
  const evil = await raw("evil.example:8787");
  assert.equal(evil.status, 403);
  assert.match(evil.body, /"code":"forbidden"/);
  assert.equal((await raw(`localhost:${t.service.port}`)).status, 200);
});

Deno.test("auth: binding a non-loopback address without keys refuses to start", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(
      startService({ host: "0.0.0.0", port: 0, dataDir: dir, pool: { size: 0 } }),
      (err: Error & { code?: string }) =>
        err.code === "invalid_config" && /API keys/.test(err.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
