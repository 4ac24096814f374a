import assert from "node:assert/strict";
import { jsonSchema, tool } from "ai";
import { z } from "zod";
import {
  createRuntime,
  type ExecuteResult,
  openApiConnector,
  toolSetConnector,
} from "../../mod.ts";
import { PETSTORE_KEY, startPetstore } from "./openapi_petstore.ts";
import petstore from "../fixtures/openapi/petstore.json" with { type: "json" };

const SECRET = "sk-live-cordon-test-9c1e77";

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

/** An echo server on loopback that reports the headers it received. */
function echoServer() {
  const seen: Record<string, string>[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    seen.push(Object.fromEntries(req.headers));
    return Response.json({
      path: new URL(req.url).pathname,
      authorization: req.headers.get("authorization"),
    });
  });
  return {
    host: `127.0.0.1:${server.addr.port}`,
    seen,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("http built-in: allowed host works, others refused, the secret never reaches the script", async () => {
  await using srv = echoServer();
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    builtins: {
      http: {
        allow: [srv.host],
        secrets: { [srv.host]: { authorization: `Bearer ${SECRET}` } },
        allowPrivateNetwork: true,
      },
    },
  });
  const run = await rt.execute({
    code: `const r = await http.fetch({ url: "http://${srv.host}/hello" });
console.log(JSON.stringify(r));
let refused;
try { await http.fetch({ url: "https://example.com/" }); } catch (e) { refused = e.code; }
return { r, refused };`,
  });
  const out = ok(run) as { r: { status: number; json: { path: string } }; refused: string };
  assert.equal(out.r.status, 200);
  assert.equal(out.r.json.path, "/hello");
  assert.equal(out.refused, "policy_denied");
  // The server got the secret; the script's result, logs and the stored call log did not.
  assert.equal(srv.seen[0].authorization, `Bearer ${SECRET}`);
  const stored = await rt.execution(run.executionId);
  for (
    const [what, text] of [
      ["result", JSON.stringify(out)],
      ["logs", JSON.stringify(run.logs)],
      ["call log", JSON.stringify(stored)],
      ["types", rt.types().declarations],
    ]
  ) {
    assert.ok(text.length > 10, what);
    assert.ok(!text.includes(SECRET), `the secret leaked into the ${what}`);
  }
});

Deno.test("state built-in: values outlive the execution that set them", async () => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    builtins: { state: { namespace: "test" } },
  });
  ok(await rt.execute({ code: `await state.set({ key: "seen", value: { n: 1 } }); return 1` }));
  const got = ok(
    await rt.execute({
      code: `await state.increment({ key: "hits" });
return { seen: await state.get({ key: "seen" }), hits: await state.get({ key: "hits" }) }`,
    }),
  );
  assert.deepEqual(got, { seen: { n: 1 }, hits: 1 });
});

Deno.test("openApiConnector() through a runtime: one tool per operation, host-side auth", async () => {
  await using store = startPetstore();
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    connectors: [
      openApiConnector({
        name: "pets",
        document: petstore,
        baseUrl: store.baseUrl,
        auth: { headers: { "X-Api-Key": PETSTORE_KEY } },
      }),
    ],
  });
  const run = await rt.execute({
    code: `const all = await pets.listPets({});
let missing;
try { await pets.getPet({ petId: 99 }); } catch (e) { missing = e.code; }
return { count: Array.isArray(all) ? all.length : all, missing };`,
  });
  const out = ok(run) as { count: number; missing: string };
  assert.ok(out.count > 0);
  assert.equal(out.missing, "tool_error");
  assert.match(rt.types().declarations, /declare const pets/);
  assert.ok(!JSON.stringify(await rt.execution(run.executionId)).includes(PETSTORE_KEY));
});

Deno.test("toolSetConnector() through a runtime: AI SDK tools run, and one without execute is client-resolved", async () => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    connectors: [
      toolSetConnector({
        name: "ai",
        tools: {
          weather: tool({
            description: "Weather in a city",
            inputSchema: z.object({ city: z.string() }),
            execute: ({ city }) => Promise.resolve({ city, tempC: 21 }),
          }),
          pickColor: tool({
            description: "A person picks a color",
            inputSchema: jsonSchema<{ options: string[] }>({
              type: "object",
              properties: { options: { type: "array", items: { type: "string" } } },
              required: ["options"],
            }),
            outputSchema: z.object({ color: z.string() }),
          }),
        },
      }),
    ],
  });
  const first = await rt.execute({
    code: `const w = await ai.weather({ city: "Oslo" });
const c = await ai.pickColor({ options: ["red", "blue"] });
return { w, c };`,
  });
  assert.equal(first.status, "paused", Deno.inspect(first).slice(0, 600));
  const pending = (first as { pending: { seq: number; needs: string }[] }).pending[0];
  assert.equal(pending.needs, "value");
  const bad = await rt.resolve(first.executionId, pending.seq, { colour: "red" }).catch((e) => e);
  assert.equal((bad as { code?: string }).code, "invalid_output");
  const done = await rt.resolve(first.executionId, pending.seq, { color: "blue" });
  assert.deepEqual(ok(done), { w: { city: "Oslo", tempC: 21 }, c: { color: "blue" } });
});
