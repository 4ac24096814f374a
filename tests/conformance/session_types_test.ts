/**
 * What the model is told in a session: code that uses names an earlier execution of the session
 * declared type-checks against those declarations (never `TS2304 Cannot find name`), typed as
 * they were inferred, so a real mistake is still reported.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecuteResult, type Runtime } from "../../mod.ts";
import { diagnosticsOf } from "../_helpers/diagnostics.ts";

const db = defineConnector({
  name: "db",
  description: "Rows",
  tools: {
    query: {
      description: "Rows of a table",
      input: z.object({ table: z.string() }),
      output: z.array(z.object({ id: z.number(), name: z.string() })),
      execute: () => [{ id: 1, name: "ada" }, { id: 2, name: "bob" }],
    },
  },
});

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  return (r as { result: unknown }).result;
}

/** Its findings, from the result or, when its check was still pending, the stored execution. */
async function codes(rt: Runtime, r: ExecuteResult): Promise<string[]> {
  return (await diagnosticsOf(rt, r)).map((d) => `${d.code} ${d.message}`);
}

Deno.test("a session's next execution type-checks against what the earlier ones declared", async () => {
  await using rt = await createRuntime({ connectors: [db], db: ":memory:", pool: { size: 0 } });
  const first = await rt.execute({
    session: true,
    code: 'const rows = await db.query({ table: "users" });\n' +
      "let count = 0;\n" +
      "function label(n: number) { return `#${n}` }\n" +
      "type Row = { id: number; name: string };\n" +
      "return rows.length;",
  });
  assert.equal(ok(first), 2);
  assert.deepEqual(await codes(rt, first), []);
  const sessionId = first.meta.sessionId!;

  const second = await rt.execute({
    sessionId,
    code:
      "const r: Row = rows[0];\ncount = count + 1;\nreturn label(r.id) + ' ' + r.name.toUpperCase();",
  });
  assert.equal(ok(second), "#1 ADA");
  assert.deepEqual(await codes(rt, second), [], "no TS2304 for names the session declared");

  // Strict mode runs it too (a false TS2304 would have blocked it).
  const strict = await rt.execute({
    sessionId,
    typecheck: "strict",
    code: "return rows.length + count",
  });
  assert.equal(ok(strict), 3);

  // The carried types are the inferred ones, not `any`: a real mistake is still found.
  const wrong = await rt.execute({ sessionId, code: "return rows[0].email" });
  const found = await diagnosticsOf(rt, wrong);
  assert.deepEqual(found.map((d) => d.code), ["TS2339"]);
  assert.match(found[0].message, /email/);

  // A name nobody declared is still unknown.
  const unknown = await rt.execute({ sessionId, code: "return nobody" });
  assert.deepEqual((await diagnosticsOf(rt, unknown)).map((d) => d.code), ["TS2304"]);
});

Deno.test("names declared by an unchecked run of the session are known to the next check", async () => {
  await using rt = await createRuntime({ connectors: [db], db: ":memory:", pool: { size: 0 } });
  const first = await rt.execute({
    session: true,
    typecheck: "off",
    code: "const seen = new Set([1]);",
  });
  ok(first);
  const next = await rt.execute({ sessionId: first.meta.sessionId!, code: "return seen.size" });
  assert.equal(ok(next), 1);
  assert.deepEqual(await codes(rt, next), []);
  // Another session does not see them.
  const other = await rt.execute({ session: true, code: "return seen.size" });
  assert.deepEqual((await diagnosticsOf(rt, other)).map((d) => d.code), ["TS2304"]);
});
