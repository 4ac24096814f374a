import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecuteResult } from "../../../mod.ts";

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 400));
  return (r as { result: unknown }).result;
}

Deno.test("search: one namespace's snippets change neither another's scores nor its results", async () => {
  const reports = defineConnector({
    name: "reports",
    description: "Sales reports",
    tools: {
      weekly: {
        description: "The weekly sales report",
        input: z.object({}),
        readOnly: true,
        execute: () => "report",
      },
      invoices: {
        description: "Invoices of a customer",
        input: z.object({}),
        readOnly: true,
        execute: () => [],
      },
    },
  });
  await using rt = await createRuntime({
    connectors: [reports],
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
  });
  const save = async (namespace: string, name: string, description: string) => {
    const run = await rt.execute({ namespace, code: "return 1" });
    ok(run);
    await rt.saveSnippet(name, { executionId: run.executionId, description });
  };
  await save("globex", "monthly_summary", "Summarise the monthly sales report");
  const queries = ["sales report", "weekly invoices", "monthly summary", ""];
  const before = await Promise.all(queries.map((q) => rt.search(q, { namespace: "globex" })));
  for (let i = 0; i < 8; i++) {
    await save("acme", `report_${i}`, `Sales report ${i}: the weekly report of invoices, report`);
  }
  const after = await Promise.all(queries.map((q) => rt.search(q, { namespace: "globex" })));
  assert.deepEqual(after, before);
  // From inside a script too.
  const inside = ok(
    await rt.execute({
      namespace: "globex",
      code: `return (await codemode.search("sales report")).items.map((h) => [h.path, h.score])`,
    }),
  );
  assert.deepEqual(inside, before[0].items.map((h) => [h.path, h.score]));
  assert.ok(
    (await rt.search("report 3", { namespace: "acme" })).items.some((h) =>
      h.path === "snippet:report_3"
    ),
  );
});
