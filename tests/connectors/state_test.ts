import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  DEFAULT_STATE_MAX_VALUE_BYTES,
  stateConnector,
  type StateConnectorOptions,
} from "../../src/connectors/builtin/state.ts";
import { type CallOutcome, ConnectorRegistry } from "../../src/connectors/registry.ts";
import { type Db, openDb } from "../../src/store/client.ts";

/** A started state connector behind a registry, the path every real call takes. */
async function open(db: Db, options: Partial<StateConnectorOptions> = {}) {
  const connector = stateConnector({ db, ...options });
  await connector.start!();
  const reg = new ConnectorRegistry([connector]);
  const name = connector.name;
  return (tool: string, args: unknown): Promise<CallOutcome> =>
    reg.call(name, tool, args, { executionId: "exec_state" });
}

function value(out: CallOutcome): unknown {
  if (!out.ok) assert.fail(`call failed: ${out.error.code}: ${out.error.message}`);
  return out.value;
}

async function tempDbUrl(): Promise<{ url: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "cordon_state_" });
  return { url: pathToFileURL(join(dir, "state.db")).href, dir };
}

Deno.test("stateConnector() get returns what set stored, and null for a missing key", async () => {
  const db = await openDb(":memory:");
  try {
    const call = await open(db);
    assert.equal(value(await call("get", { key: "cursor" })), null);
    const stored = { page: 2, seen: ["a", "b"], done: false, note: "ünïcödé" };
    assert.deepEqual(value(await call("set", { key: "cursor", value: stored })), {
      bytes: new TextEncoder().encode(JSON.stringify(stored)).length,
    });
    assert.deepEqual(value(await call("get", { key: "cursor" })), stored);
    value(await call("set", { key: "cursor", value: 7 }));
    assert.equal(value(await call("get", { key: "cursor" })), 7);
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() delete answers whether the key was there", async () => {
  const db = await openDb(":memory:");
  try {
    const call = await open(db);
    value(await call("set", { key: "k", value: "v" }));
    assert.equal(value(await call("delete", { key: "k" })), true);
    assert.equal(value(await call("delete", { key: "k" })), false);
    assert.equal(value(await call("get", { key: "k" })), null);
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() namespaces on one database do not see each other", async () => {
  const db = await openDb(":memory:");
  try {
    const a = await open(db, { namespace: "agent-a" });
    const b = await open(db, { namespace: "agent-b" });
    value(await a("set", { key: "shared", value: "from a" }));
    value(await a("increment", { key: "n" }));
    assert.equal(value(await b("get", { key: "shared" })), null);
    assert.deepEqual(value(await b("list", {})), { items: [] });
    assert.equal(value(await b("delete", { key: "shared" })), false);
    assert.equal(value(await b("increment", { key: "n" })), 1);
    value(await b("set", { key: "shared", value: "from b" }));
    assert.equal(value(await a("get", { key: "shared" })), "from a");
    assert.equal(value(await a("increment", { key: "n" })), 2);
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() set refuses a value over maxValueBytes with value_too_large", async () => {
  const db = await openDb(":memory:");
  try {
    const call = await open(db, { maxValueBytes: 100 });
    const big = "x".repeat(99); // 101 bytes of JSON with its quotes
    const out = await call("set", { key: "big", value: big });
    assert.ok(!out.ok);
    assert.equal(out.error.code, "value_too_large");
    assert.match(out.error.message, /101 bytes.*at most 100.*Store less/);
    assert.deepEqual(out.error.details, { key: "big", bytes: 101, limit: 100 });
    assert.equal(value(await call("get", { key: "big" })), null);
    value(await call("set", { key: "fits", value: "x".repeat(98) }));
    assert.equal(DEFAULT_STATE_MAX_VALUE_BYTES, 65_536);
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() set refuses values JSON cannot hold", async () => {
  const db = await openDb(":memory:");
  try {
    const call = await open(db);
    for (const bad of [undefined, new Date(0), 1n, Number.NaN, { f: () => 1 }]) {
      const out = await call("set", { key: "k", value: bad });
      assert.ok(!out.ok, `accepted ${String(bad)}`);
      assert.equal(out.error.code, "invalid_input");
    }
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() enforces maxKeyLength and maxKeys", async () => {
  const db = await openDb(":memory:");
  try {
    const call = await open(db, { maxKeyLength: 8, maxKeys: 3 });
    const long = await call("get", { key: "123456789" });
    assert.ok(!long.ok);
    assert.equal(long.error.code, "invalid_input");
    const empty = await call("set", { key: "", value: 1 });
    assert.ok(!empty.ok);
    assert.equal(empty.error.code, "invalid_input");
    for (const key of ["a", "b", "c"]) value(await call("set", { key, value: key }));
    const fourth = await call("set", { key: "d", value: "d" });
    assert.ok(!fourth.ok);
    assert.equal(fourth.error.code, "limit_exceeded");
    assert.match(fourth.error.message, /already holds 3 keys/);
    const counter = await call("increment", { key: "d" });
    assert.ok(!counter.ok);
    assert.equal(counter.error.code, "limit_exceeded");
    // An existing key can still change, and a freed slot can be taken.
    value(await call("set", { key: "a", value: "again" }));
    value(await call("delete", { key: "b" }));
    value(await call("set", { key: "d", value: "d" }));
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() list pages keys in order with prefix, sizes and times", async () => {
  const db = await openDb(":memory:");
  try {
    let clock = Date.UTC(2030, 0, 1);
    const call = await open(db, { now: () => clock++ });
    for (const key of ["job:3", "job:1", "other", "job:2", "job:10"]) {
      value(await call("set", { key, value: { key } }));
    }
    const first = value(await call("list", { prefix: "job:", limit: 2 })) as {
      items: { key: string; bytes: number; updatedAt: string }[];
      nextCursor?: string;
    };
    assert.deepEqual(first.items.map((i) => i.key), ["job:1", "job:10"]);
    assert.equal(first.items[0].bytes, JSON.stringify({ key: "job:1" }).length);
    assert.equal(first.items[0].updatedAt, new Date(Date.UTC(2030, 0, 1) + 1).toISOString());
    assert.equal(typeof first.nextCursor, "string");
    const second = value(
      await call("list", { prefix: "job:", limit: 2, cursor: first.nextCursor }),
    ) as { items: { key: string }[]; nextCursor?: string };
    assert.deepEqual(second.items.map((i) => i.key), ["job:2", "job:3"]);
    assert.equal(second.nextCursor, undefined);
    const all = value(await call("list", {})) as { items: { key: string }[] };
    assert.equal(all.items.length, 5);
    const forged = await call("list", { cursor: "%%%" });
    assert.ok(!forged.ok);
    assert.equal(forged.error.code, "invalid_input");
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() increment counts from 0, by any step, and refuses a non-number", async () => {
  const db = await openDb(":memory:");
  try {
    const call = await open(db);
    assert.equal(value(await call("increment", { key: "n" })), 1);
    assert.equal(value(await call("increment", { key: "n", by: 41 })), 42);
    assert.equal(value(await call("increment", { key: "n", by: -2.5 })), 39.5);
    assert.equal(value(await call("get", { key: "n" })), 39.5);
    value(await call("set", { key: "name", value: "Ada" }));
    const out = await call("increment", { key: "name" });
    assert.ok(!out.ok);
    assert.match(out.error.message, /holds a JSON text, not a number/);
    assert.equal(value(await call("get", { key: "name" })), "Ada");
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() increment is atomic: 50 at once add exactly 50", async () => {
  const db = await openDb(":memory:");
  try {
    const call = await open(db);
    const outs = await Promise.all(
      Array.from({ length: 50 }, () => call("increment", { key: "hits" })),
    );
    assert.deepEqual(outs.map(value).sort((x, y) => Number(x) - Number(y)), [
      ...Array.from({ length: 50 }, (_, i) => i + 1),
    ]);
    assert.equal(value(await call("get", { key: "hits" })), 50);
  } finally {
    db.close();
  }
});

Deno.test("stateConnector() increment is atomic across two connections to one file", async () => {
  const { url, dir } = await tempDbUrl();
  const one = await openDb(url);
  const two = await openDb(url);
  try {
    const a = await open(one);
    const b = await open(two);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b)("increment", { key: "hits" })),
    );
    assert.equal(value(await a("get", { key: "hits" })), 50);
  } finally {
    one.close();
    two.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stateConnector() keeps values in a file database across reopening", async () => {
  const { url, dir } = await tempDbUrl();
  try {
    const first = await openDb(url);
    try {
      const call = await open(first, { namespace: "persist" });
      value(await call("set", { key: "plan", value: { step: 3 } }));
      value(await call("increment", { key: "runs" }));
    } finally {
      first.close();
    }
    const again = await openDb(url);
    try {
      const call = await open(again, { namespace: "persist" });
      assert.deepEqual(value(await call("get", { key: "plan" })), { step: 3 });
      assert.equal(value(await call("increment", { key: "runs" })), 2);
    } finally {
      again.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stateConnector() marks get and list read-only, set and delete destructive", () => {
  const db = { url: ":none:" } as unknown as Db;
  const tools = Object.fromEntries(stateConnector({ db }).tools.map((t) => [t.name, t]));
  assert.equal(tools.get.annotations.readOnly, true);
  assert.equal(tools.list.annotations.readOnly, true);
  for (const name of ["set", "delete", "increment"]) {
    assert.notEqual(tools[name].annotations.readOnly, true, name);
  }
  assert.equal(tools.set.annotations.destructive, true);
  assert.equal(tools.delete.annotations.destructive, true);
});
