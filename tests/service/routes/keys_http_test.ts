import assert from "node:assert/strict";
import { openService } from "../_service.ts";

const as = (token: string) => ({ authorization: `Bearer ${token}` });

Deno.test("/v1/keys: admins list, create and revoke keys; other keys get 403", async () => {
  await using t = await openService({ auth: "keys" });
  const admin = await t.service.keys.create({ name: "root", scopes: ["admin"] });
  const worker = await t.service.keys.create({ name: "worker", scopes: ["execute", "approve"] });

  // Without admin, every key route is refused with the scope it needs.
  for (
    const [method, path, body] of [
      ["GET", "/v1/keys", undefined],
      ["POST", "/v1/keys", { name: "x", scopes: ["execute"] }],
      ["DELETE", `/v1/keys/${admin.key.id}`, undefined],
    ] as const
  ) {
    const r = await t.call(method, path, body, as(worker.token));
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.equal(r.json.error.code, "forbidden");
    assert.equal(r.json.error.details.needs, "admin");
    assert.equal((await t.call(method, path, body)).status, 401, "and 401 without a key");
  }
  // The worker's refused revoke left the admin key working.
  assert.equal((await t.call("GET", "/v1/keys", undefined, as(admin.token))).status, 200);

  const made = await t.call(
    "POST",
    "/v1/keys",
    { name: " ci ", scopes: ["execute"], namespace: "team-a" },
    as(admin.token),
  );
  assert.equal(made.status, 201, JSON.stringify(made.json));
  assert.match(made.json.token, /^cordon_/);
  assert.equal(made.json.key.name, "ci");
  assert.deepEqual(made.json.key.scopes, ["execute"]);
  assert.equal(made.json.key.namespace, "team-a");
  // The new token works at once, in its namespace.
  const ran = await t.call("POST", "/v1/executions", { code: "return 7" }, as(made.json.token));
  assert.equal(ran.json.result, 7);
  const seen = await t.call("GET", "/v1/executions", undefined, as(admin.token));
  assert.equal(seen.json.items[0].namespace, "team-a");

  const listed = await t.call("GET", "/v1/keys", undefined, as(admin.token));
  assert.deepEqual(listed.json.items.map((k: { name: string }) => k.name).sort(), [
    "ci",
    "root",
    "worker",
  ]);
  const text = JSON.stringify(listed.json);
  assert.ok(!text.includes(made.json.token), "a token is never listed");
  assert.ok(!/"hash"/.test(text), "nor its hash");

  const revoked = await t.call(
    "DELETE",
    `/v1/keys/${made.json.key.id}`,
    undefined,
    as(admin.token),
  );
  assert.equal(revoked.status, 200);
  assert.deepEqual(revoked.json, { revoked: true });
  assert.equal((await t.call("GET", "/v1/executions", undefined, as(made.json.token))).status, 401);
  const again = await t.call("DELETE", `/v1/keys/${made.json.key.id}`, undefined, as(admin.token));
  assert.equal(again.status, 404);
  assert.equal(again.json.error.code, "not_found");
  const after = await t.call("GET", "/v1/keys", undefined, as(admin.token));
  assert.ok(after.json.items.find((k: { name: string }) => k.name === "ci").revokedAt > 0);
});

Deno.test("/v1/keys: bad bodies are 400 with each problem named; config keys are revoked in the config", async () => {
  await using t = await openService({
    auth: "keys",
    keys: [{ name: "deploy", sha256: "a".repeat(64), scopes: ["execute"] }],
  });
  const admin = await t.service.keys.create({ name: "root", scopes: ["admin"] });
  for (
    const body of [
      { name: "", scopes: ["execute"] },
      { name: "x", scopes: [] },
      { name: "x", scopes: ["root"] },
      { name: "x", scopes: ["execute"], token: "mine" },
      { name: "x".repeat(101), scopes: ["execute"] },
      // A newline and tabs would forge a row of `deno task keys list`.
      { name: "ok\nkey_forged\troot\texecute,approve,admin", scopes: ["execute"] },
      { name: "evil\u202egnp.exe", scopes: ["execute"] },
    ]
  ) {
    const r = await t.call("POST", "/v1/keys", body, as(admin.token));
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.json.error.code, "invalid_request");
    assert.ok(r.json.error.details.issues.length > 0);
  }
  // `deno task keys create` goes through the same store check.
  await assert.rejects(
    t.service.keys.create({ name: "a\tb", scopes: ["execute"] }),
    (err: Error & { code?: string }) =>
      err.code === "invalid_request" && /control/.test(err.message),
  );
  const badNamespace = await t.call(
    "POST",
    "/v1/keys",
    { name: "x", scopes: ["execute"], namespace: "no spaces allowed" },
    as(admin.token),
  );
  assert.equal(badNamespace.status, 400, JSON.stringify(badNamespace.json));
  const configured = await t.call("DELETE", "/v1/keys/config:deploy", undefined, as(admin.token));
  assert.equal(configured.status, 409);
  assert.equal(configured.json.error.code, "invalid_state");
  const listed = await t.call("GET", "/v1/keys", undefined, as(admin.token));
  assert.equal(listed.json.items[0].source, "config");
  // Nothing above made a key.
  assert.equal(listed.json.items.length, 2);
});

Deno.test("/openapi.json documents the key routes and the activity stream", async () => {
  await using t = await openService();
  const doc = (await t.call("GET", "/openapi.json")).json;
  assert.equal(doc.paths["/v1/keys"].get["x-cordon-access"], "admin");
  assert.equal(doc.paths["/v1/keys"].post["x-cordon-access"], "admin");
  assert.deepEqual(
    doc.paths["/v1/keys"].post.requestBody.content["application/json"].schema
      .required,
    ["name", "scopes"],
  );
  assert.equal(doc.paths["/v1/keys/{id}"].delete["x-cordon-access"], "admin");
  const events = doc.paths["/v1/events"].get;
  assert.equal(events["x-cordon-access"], "read");
  assert.deepEqual(events.parameters.map((p: { name: string }) => p.name), [
    "namespace",
    "lastEventId",
  ]);
  assert.match(events.responses["200"].description, /text\/event-stream/);
});
