import assert from "node:assert/strict";
import { stateConnector, stateScope } from "../../src/connectors/builtin/state.ts";
import { type CallOutcome, ConnectorRegistry } from "../../src/connectors/registry.ts";
import { type Db, openDb } from "../../src/store/client.ts";

/** One state connector on `db`, called as executions of two namespaces would call it. */
async function tenants(db: Db, options: { namespace?: string; maxKeys?: number } = {}) {
  const connector = stateConnector({ db, ...options });
  await connector.start!();
  const reg = new ConnectorRegistry([connector]);
  const as = (namespace: string) => (tool: string, args: unknown): Promise<CallOutcome> =>
    reg.call("state", tool, args, { executionId: `exec_${namespace}`, namespace });
  return { acme: as("acme"), globex: as("globex") };
}

function value(out: CallOutcome): unknown {
  if (!out.ok) assert.fail(`call failed: ${out.error.code}: ${out.error.message}`);
  return out.value;
}

Deno.test("stateConnector() keeps each calling namespace's keys apart", async () => {
  const db = await openDb(":memory:");
  try {
    const { acme, globex } = await tenants(db);
    value(await acme("set", { key: "secret", value: "acme's" }));
    value(await acme("increment", { key: "n", by: 5 }));
    // globex can neither read, list, delete, overwrite nor count on acme's keys.
    assert.equal(value(await globex("get", { key: "secret" })), null);
    assert.deepEqual(value(await globex("list", {})), { items: [] });
    assert.deepEqual(value(await globex("list", { prefix: "sec" })), { items: [] });
    assert.equal(value(await globex("delete", { key: "secret" })), false);
    assert.equal(value(await globex("increment", { key: "n" })), 1);
    value(await globex("set", { key: "secret", value: "globex's" }));
    assert.equal(value(await acme("get", { key: "secret" })), "acme's");
    assert.equal(value(await acme("increment", { key: "n" })), 6);
    assert.deepEqual(
      (value(await acme("list", {})) as { items: { key: string }[] }).items.map((i) => i.key),
      ["n", "secret"],
    );
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() counts the key limit per calling namespace", async () => {
  const db = await openDb(":memory:");
  try {
    const { acme, globex } = await tenants(db, { maxKeys: 3 });
    for (const key of ["a", "b", "c"]) value(await acme("set", { key, value: 1 }));
    const full = await acme("set", { key: "d", value: 1 });
    assert.equal(full.ok, false);
    assert.equal(!full.ok && full.error.code, "limit_exceeded");
    // acme used its own quota up, not globex's.
    for (const key of ["a", "b", "c"]) value(await globex("set", { key, value: 2 }));
    assert.equal(value(await globex("increment", { key: "a" })), 3);
    const globexFull = await globex("increment", { key: "z" });
    assert.equal(!globexFull.ok && globexFull.error.code, "limit_exceeded");
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() namespace option prefixes, and still separates callers", async () => {
  const db = await openDb(":memory:");
  try {
    const first = await tenants(db, { namespace: "agent" });
    const second = await tenants(db, { namespace: "other-agent" });
    const plain = await tenants(db);
    value(await first.acme("set", { key: "k", value: "first acme" }));
    assert.equal(value(await first.globex("get", { key: "k" })), null);
    assert.equal(value(await second.acme("get", { key: "k" })), null);
    assert.equal(value(await plain.acme("get", { key: "k" })), null);
    const { rows } = await db.execute("SELECT namespace FROM cordon_state");
    assert.deepEqual(rows.map((r) => r.namespace), [stateScope("agent", "acme")]);
    assert.equal(stateScope("agent", "acme"), "agent:acme");
    assert.equal(stateScope(undefined, "acme"), "acme");
  } finally {
    db.close();
  }
});
