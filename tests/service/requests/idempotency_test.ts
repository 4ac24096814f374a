/**
 * `Idempotency-Key` over real HTTP: a retried POST gets the first answer without running
 * again (also concurrently, and after a restart), a changed request with the same key is
 * 422, and keys are per namespace.
 */
import assert from "node:assert/strict";
import { openDb } from "../../../src/store/client.ts";
import { openService } from "../_service.ts";

Deno.test("Idempotency-Key: a retry gets the first answer; another body is a conflict", async () => {
  await using t = await openService();
  const key = { "idempotency-key": "run-7f3a" };
  const body = { code: "console.log('once'); return 40 + 2", wait: false };
  const first = await t.call("POST", "/v1/executions", body, key);
  assert.equal(first.status, 202, JSON.stringify(first.json));
  const again = await t.call("POST", "/v1/executions", body, key);
  assert.equal(again.status, 202);
  assert.equal(again.json.executionId, first.json.executionId);
  assert.equal(again.headers.get("idempotent-replayed"), "true");
  assert.equal(again.headers.get("location"), `/v1/executions/${first.json.executionId}`);

  const changed = await t.call("POST", "/v1/executions", { ...body, code: "return 1" }, key);
  assert.equal(changed.status, 422);
  assert.equal(changed.json.error.code, "idempotency_conflict");
  // The same key on another route is another request too.
  const elsewhere = await t.call("POST", "/v1/snippets/nope/run", {}, key);
  assert.equal(elsewhere.json.error.code, "idempotency_conflict");

  const bad = await t.call("POST", "/v1/executions", body, { "idempotency-key": "has space" });
  assert.equal(bad.status, 400);
  const listed = await t.call("GET", "/v1/executions");
  assert.equal(listed.json.items.length, 1, "it ran once");
  const without = await t.call("POST", "/v1/executions", body);
  assert.equal(without.status, 202, "no key: runs every time");
  assert.notEqual(without.json.executionId, first.json.executionId);
});

Deno.test("Idempotency-Key: retries while the first still runs wait for its answer", async () => {
  await using t = await openService();
  const key = { "idempotency-key": "slow-1" };
  const body = { code: "await new Promise((r) => setTimeout(r, 1_500)); return Math.random()" };
  const answers = await Promise.all([
    t.call("POST", "/v1/executions", body, key),
    t.call("POST", "/v1/executions", body, key),
    t.call("POST", "/v1/executions", body, key),
  ]);
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200]);
  assert.equal(new Set(answers.map((a) => a.json.executionId)).size, 1);
  assert.equal(new Set(answers.map((a) => a.json.result)).size, 1, "one run, one random number");
  assert.equal((await t.call("GET", "/v1/executions")).json.items.length, 1);
});

Deno.test("Idempotency-Key: decisions too; keys are per namespace", async () => {
  await using t = await openService();
  const paused = await t.call("POST", "/v1/executions", {
    code: `return await mail.send({ to: "ann" })`,
  });
  const id = paused.json.executionId;
  const approve = () =>
    t.call("POST", `/v1/executions/${id}/approve`, undefined, { "idempotency-key": "ok-1" });
  const first = await approve();
  assert.equal(first.json.result, "sent to ann", JSON.stringify(first.json));
  const retried = await approve();
  assert.equal(retried.status, 200, "a retried approval answers, not 409");
  assert.deepEqual(retried.json, first.json);

  const a = await t.service.keys.create({ name: "a", scopes: ["execute"], namespace: "team-a" });
  const b = await t.service.keys.create({ name: "b", scopes: ["execute"], namespace: "team-b" });
  const key = "shared-key";
  const runAs = (token: string) =>
    t.call("POST", "/v1/executions", { code: "return 1" }, {
      authorization: `Bearer ${token}`,
      "idempotency-key": key,
    });
  const ra = await runAs(a.token);
  const rb = await runAs(b.token);
  assert.equal(ra.status, 200);
  assert.equal(rb.status, 200);
  assert.notEqual(ra.json.executionId, rb.json.executionId, "another namespace's key is its own");
  assert.equal(rb.headers.get("idempotent-replayed"), null);
  const seenByB = await t.call("GET", "/v1/executions", undefined, {
    authorization: `Bearer ${b.token}`,
  });
  assert.deepEqual(seenByB.json.items.map((e: { executionId: string }) => e.executionId), [
    rb.json.executionId,
  ]);
});

Deno.test("Idempotency-Key: answers survive a restart; a dead process's run is pointed at", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-idem-" });
  try {
    const key = { "idempotency-key": "restart-1" };
    const body = { code: "return 'ran'" };
    let first;
    {
      await using t = await openService({}, dir);
      first = await t.call("POST", "/v1/executions", body, key);
      assert.equal(first.json.result, "ran");
    }
    await using t = await openService({}, dir);
    const again = await t.call("POST", "/v1/executions", body, key);
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, first.json);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    const other = await t.call("POST", "/v1/executions", { code: "return 2" }, key);
    assert.equal(other.json.error.code, "idempotency_conflict");
    assert.equal((await t.call("GET", "/v1/executions")).json.items.length, 1);

    // A process that died while its run went on left a key with the execution but no answer.
    const db = await openDb(`file:${dir}/cordon.db`);
    try {
      const row = await db.execute(
        "SELECT fingerprint, created_at, expires_at FROM idempotency_keys WHERE key = 'restart-1'",
      );
      await db.execute({
        sql: `INSERT INTO idempotency_keys
              (namespace, key, fingerprint, owner, execution_id, created_at, expires_at)
              VALUES ('default', 'crashed-1', ?, 'node_dead', ?, ?, ?)`,
        args: [
          String(row.rows[0].fingerprint),
          first.json.executionId,
          Number(row.rows[0].created_at),
          Number(row.rows[0].expires_at),
        ],
      });
    } finally {
      db.close();
    }
    const pointed = await t.call("POST", "/v1/executions", body, {
      "idempotency-key": "crashed-1",
    });
    assert.equal(pointed.status, 202);
    assert.equal(pointed.json.executionId, first.json.executionId);
    assert.equal(pointed.json.status, "completed");
    assert.equal((await t.call("GET", "/v1/executions")).json.items.length, 1, "nothing ran");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
