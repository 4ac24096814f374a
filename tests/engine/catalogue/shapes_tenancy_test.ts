import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecuteResult } from "../../../mod.ts";
import { ConnectorRegistry } from "../../../src/connectors/registry.ts";
import {
  Catalogue,
  MAX_OBSERVED_TOOLS_PER_NAMESPACE,
} from "../../../src/engine/catalogue/catalogue.ts";
import { openDb } from "../../../src/store/client.ts";
import { migrate, MIGRATIONS } from "../../../src/store/migrations.ts";
import { ShapeStore } from "../../../src/store/shapes.ts";

/** A tool with no output schema that echoes an object keyed by what the caller sends. */
function echo() {
  return defineConnector({
    name: "crm",
    description: "Customer records",
    tools: {
      lookup: {
        description: "A record with the fields asked for",
        input: z.object({ fields: z.array(z.string()) }),
        readOnly: true,
        execute: ({ fields }) => Object.fromEntries(fields.map((f: string) => [f, "x"])),
      },
    },
  });
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 400));
  return (r as { result: unknown }).result;
}

Deno.test("observed shapes: field names one namespace's results produced never show in another's describe()", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon_shapes_" });
  const db = `file:${join(dir, "c.db")}`;
  try {
    {
      await using rt = await createRuntime({ connectors: [echo()], db, pool: { size: 0 } });
      ok(
        await rt.execute({
          namespace: "acme",
          code: `return await crm.lookup({ fields: ["acmeMergerTarget", "acmeSalary"] })`,
        }),
      );
      ok(
        await rt.execute({
          namespace: "globex",
          code: `return await crm.lookup({ fields: ["globexOnly"] })`,
        }),
      );
      const acme = await rt.describe("crm.lookup", { namespace: "acme" });
      assert.match(acme.observedShape ?? "", /acmeMergerTarget/);
      assert.doesNotMatch(acme.observedShape ?? "", /globexOnly/);
      const globex = await rt.describe("crm.lookup", { namespace: "globex" });
      assert.match(globex.observedShape ?? "", /globexOnly/);
      assert.doesNotMatch(globex.observedShape ?? "", /acme/);
      assert.equal((await rt.describe("crm.lookup")).observedShape, undefined, "default saw none");
      // From inside a script too: codemode.describe answers in the script's namespace.
      const inside = ok(
        await rt.execute({
          namespace: "initech",
          code: `return (await codemode.describe("crm.lookup")).observedShape ?? null`,
        }),
      );
      assert.equal(inside, null);
      // Nor through a connector handle, even for the default namespace's observations.
      ok(await rt.execute({ code: `return await crm.lookup({ fields: ["defaultOnly"] })` }));
      assert.match((await rt.describe("crm.lookup")).observedShape ?? "", /defaultOnly/);
      const viaHandle = ok(
        await rt.execute({
          namespace: "initech",
          code: `const crm = codemode.connector("crm");
            return (await crm.describeTool("lookup")).data.observedOutputShape ?? null;`,
        }),
      );
      assert.equal(viaHandle, null);
    }
    {
      // Reopened from the store: still apart.
      await using rt = await createRuntime({ connectors: [echo()], db, pool: { size: 0 } });
      const globex = await rt.describe("crm.lookup", { namespace: "globex" });
      assert.match(globex.observedShape ?? "", /globexOnly/);
      assert.doesNotMatch(globex.observedShape ?? "", /acme/);
      const acme = await rt.describe("crm.lookup", { namespace: "acme" });
      assert.match(acme.observedShape ?? "", /acmeSalary/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Catalogue.observe() caps the tools observed per namespace, not across them", async () => {
  const n = MAX_OBSERVED_TOOLS_PER_NAMESPACE + 1;
  const wide = defineConnector({
    name: "wide",
    description: "Many tools",
    tools: Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`t${i}`, {
        description: `Tool ${i}`,
        input: z.object({}),
        execute: () => ({ field: 1 }),
      }]),
    ),
  });
  const db = await openDb(":memory:");
  try {
    await migrate(db);
    const catalogue = await Catalogue.open(new ConnectorRegistry([wide]), new ShapeStore(db), []);
    for (let i = 0; i < n; i++) catalogue.observe("wide", `t${i}`, { field: 1 }, "acme");
    const last = `wide.t${n - 1}`;
    assert.match(catalogue.describe("wide.t0", undefined, "acme").observedShape ?? "", /field/);
    assert.equal(catalogue.describe(last, undefined, "acme").observedShape, undefined);
    // Another namespace has its own room.
    catalogue.observe("wide", `t${n - 1}`, { field: 1 }, "globex");
    assert.match(catalogue.describe(last, undefined, "globex").observedShape ?? "", /field/);
    // Writes are fire-and-forget; wait for them: acme's capped tool is not stored either.
    const stored = async () =>
      Number((await db.execute("SELECT COUNT(*) AS n FROM tool_shapes")).rows[0].n);
    while (await stored() < MAX_OBSERVED_TOOLS_PER_NAMESPACE + 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const acmeRows = await db.execute(
      "SELECT COUNT(*) AS n FROM tool_shapes WHERE namespace = 'acme'",
    );
    assert.equal(Number(acmeRows.rows[0].n), MAX_OBSERVED_TOOLS_PER_NAMESPACE);
  } finally {
    db.close();
  }
});

Deno.test("migration 6 keys shapes by namespace and drops the mixed ones saved before", async () => {
  const db = await openDb(":memory:");
  try {
    await migrate(db, MIGRATIONS.filter((m) => m.version < 6));
    await db.execute(
      `INSERT INTO tool_shapes (connector, tool, shape, samples, updated_at)
        VALUES ('crm', 'lookup', '{"samples":1,"kinds":[{"kind":"string"}]}', 1, 1)`,
    );
    assert.ok((await migrate(db)).includes(6));
    const store = new ShapeStore(db);
    assert.deepEqual(await store.all(), [], "nobody's observations are handed to a namespace");
    const row = { connector: "crm", tool: "lookup", shape: { samples: 1 }, samples: 1 };
    await store.put({ ...row, namespace: "acme", updatedAt: 2 });
    await store.put({ ...row, namespace: "globex", samples: 3, updatedAt: 3 });
    assert.equal((await store.get("acme", "crm", "lookup"))?.samples, 1);
    assert.equal((await store.get("globex", "crm", "lookup"))?.samples, 3);
    assert.equal(await store.get("initech", "crm", "lookup"), undefined);
  } finally {
    db.close();
  }
});
