import assert from "node:assert/strict";
import { hashToken } from "../../../src/service/access/keys.ts";
import { openService } from "../_service.ts";

const ACME = "cordon_state_tenancy_acme_key_0123456789";
const GLOBEX = "cordon_state_tenancy_globex_key_0123456789";

Deno.test("state over HTTP: two keys of different namespaces never see or touch each other's keys", async () => {
  await using t = await openService({
    auth: "keys",
    keys: [
      { name: "acme", sha256: await hashToken(ACME), scopes: ["execute"], namespace: "acme" },
      { name: "globex", sha256: await hashToken(GLOBEX), scopes: ["execute"], namespace: "globex" },
    ],
  });
  const run = async (token: string, code: string) => {
    const r = await t.call("POST", "/v1/executions", { code }, {
      authorization: `Bearer ${token}`,
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.status, "completed", JSON.stringify(r.json));
    return r.json.result;
  };
  await run(
    ACME,
    `await state.set({ key: "secret", value: "acme only" });
     await state.increment({ key: "counter", by: 7 });
     return null;`,
  );
  // globex probes acme's keys every way the tool allows.
  const probe = await run(
    GLOBEX,
    `const got = await state.get({ key: "secret" });
     const listed = await state.list({});
     const deleted = await state.delete({ key: "secret" });
     const counted = await state.increment({ key: "counter" });
     await state.set({ key: "secret", value: "globex was here" });
     return { got, keys: listed.items.map((i) => i.key), deleted, counted };`,
  );
  assert.deepEqual(probe, { got: null, keys: [], deleted: false, counted: 1 });
  const after = await run(
    ACME,
    `return {
       secret: await state.get({ key: "secret" }),
       counter: await state.get({ key: "counter" }),
       keys: (await state.list({})).items.map((i) => i.key),
     };`,
  );
  assert.deepEqual(after, { secret: "acme only", counter: 7, keys: ["counter", "secret"] });
});
