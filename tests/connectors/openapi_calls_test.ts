import assert from "node:assert/strict";
import {
  openApiConnector,
  type OpenApiConnectorOptions,
} from "../../src/connectors/openapi/mod.ts";
import { ConnectorRegistry } from "../../src/connectors/registry.ts";
import { CordonError } from "../../src/errors.ts";
import petstore from "../fixtures/openapi/petstore.json" with { type: "json" };
import { PETSTORE_KEY, startPetstore } from "./openapi_petstore.ts";

const call = { executionId: "exec_openapi" };

function registryFor(baseUrl: string, extra: Partial<OpenApiConnectorOptions> = {}) {
  return new ConnectorRegistry([
    openApiConnector({
      name: "pets",
      document: petstore,
      baseUrl,
      auth: { headers: { "X-Api-Key": PETSTORE_KEY } },
      ...extra,
    }),
  ]);
}

function context(tool: string) {
  return {
    signal: new AbortController().signal,
    executionId: "exec_direct",
    namespace: "default",
    connector: "x",
    tool,
  };
}

Deno.test("openApiConnector() calls the API with path, query, header and body arguments", async () => {
  await using store = startPetstore();
  const reg = registryFor(store.baseUrl);
  const listed = await reg.call("pets", "listPets", {
    tags: ["dog", "fish"],
    status: "available",
    limit: 10,
    "X-Request-Id": "req-1",
  }, call);
  assert.deepEqual(listed.ok && (listed.value as { name: string }[]).map((p) => p.name), [
    "Rex",
    "Nemo",
  ]);
  const seen = store.requests.at(-1)!;
  assert.deepEqual(seen.query.getAll("tags"), ["dog", "fish"]);
  assert.equal(seen.query.get("limit"), "10");
  assert.equal(seen.headers.get("x-request-id"), "req-1");

  const got = await reg.call("pets", "getPet", { petId: 2 }, call);
  assert.deepEqual(got, { ok: true, value: { id: 2, name: "Tom", tag: "cat", status: "sold" } });

  const created = await reg.call(
    "pets",
    "createPet",
    { body: { name: "Kiki", tag: "bird" } },
    call,
  );
  assert.deepEqual(created, { ok: true, value: { id: 4, name: "Kiki", tag: "bird" } });
  assert.equal(store.requests.at(-1)!.headers.get("content-type"), "application/json");
  assert.deepEqual(JSON.parse(store.requests.at(-1)!.body), { name: "Kiki", tag: "bird" });

  const photos = await reg.call("pets", "get_pets_petId_photos", {
    petId: 3,
    format: "png",
    header_format: "compact",
  }, call);
  assert.deepEqual(photos, {
    ok: true,
    value: { petId: 3, format: "png", headerFormat: "compact" },
  });

  assert.deepEqual(await reg.call("pets", "deletePet", { petId: 4 }, call), {
    ok: true,
    value: null,
  });
  const gone = await reg.call("pets", "getPet", { petId: 4 }, call);
  assert.equal(!gone.ok && gone.error.details?.status, 404);

  const tree = await reg.call("pets", "categories_tree", {}, call);
  assert.equal(tree.ok && (tree.value as { name: string }).name, "Animals");
  assert.deepEqual(await reg.call("pets", "get_health", {}, call), { ok: true, value: "ok" });
});

Deno.test("openApiConnector() sends the host's credentials and never returns them", async () => {
  await using store = startPetstore();
  const reg = registryFor(store.baseUrl);
  const outcomes = [
    await reg.call("pets", "listPets", {}, call),
    await reg.call("pets", "getPet", { petId: 1 }, call),
    await reg.call("pets", "getPet", { petId: 99 }, call),
    // The store quotes the key in this refusal; the message must not.
    await reg.call("pets", "deletePet", { petId: 1 }, call),
  ];
  assert.ok(store.requests.every((r) => r.headers.get("x-api-key") === PETSTORE_KEY));
  assert.equal(outcomes[0].ok && outcomes[1].ok, true);
  for (const outcome of outcomes) assert.ok(!JSON.stringify(outcome).includes(PETSTORE_KEY));
  const refused = outcomes[3];
  assert.equal(
    !refused.ok && refused.error.message,
    'DELETE /pets/1 returned 403: {"error":"key [redacted] may not delete pet 1"}',
  );

  const withoutKey = registryFor(store.baseUrl, { auth: {} });
  const denied = await withoutKey.call("pets", "listPets", {}, call);
  assert.equal(!denied.ok && denied.error.details?.status, 401);
});

Deno.test("openApiConnector() puts host query credentials last, over a script's own", async () => {
  await using store = startPetstore();
  const pets = openApiConnector({
    name: "pets",
    document: petstore,
    baseUrl: store.baseUrl,
    auth: { headers: { "X-Api-Key": PETSTORE_KEY }, query: { status: "sold" } },
  });
  const list = pets.tools.find((t) => t.name === "listPets")!;
  const value = await list.execute!({ status: "available" }, context("listPets"));
  assert.deepEqual((value as { name: string }[]).map((p) => p.name), ["Tom"]);
  assert.deepEqual(store.requests.at(-1)!.query.getAll("status"), ["sold"]);
});

Deno.test("openApiConnector() turns a failed status into tool_error with the status", async () => {
  await using store = startPetstore();
  const reg = registryFor(store.baseUrl);
  const missing = await reg.call("pets", "getPet", { petId: 99 }, call);
  assert.deepEqual(missing, {
    ok: false,
    error: {
      code: "tool_error",
      message: 'GET /pets/99 returned 404: {"error":"pet 99 not found"}',
      details: { status: 404 },
    },
  });
  const pets = openApiConnector({
    name: "pets",
    document: petstore,
    baseUrl: store.baseUrl,
    auth: { headers: { "X-Api-Key": PETSTORE_KEY } },
  });
  const create = pets.tools.find((t) => t.name === "createPet")!;
  // Straight to execute (no validation): the server's own check answers.
  await assert.rejects(
    () => Promise.resolve(create.execute!({ body: { name: "" } }, context("createPet"))),
    (err: unknown) =>
      err instanceof CordonError && err.code === "tool_error" && err.details?.status === 400 &&
      err.message === 'POST /pets returned 400: {"error":"name is required"}',
  );
});

Deno.test("openApiConnector() refuses bad arguments as invalid_input without a request", async () => {
  await using store = startPetstore();
  const reg = registryFor(store.baseUrl);
  const bad = [
    await reg.call("pets", "getPet", { petId: "seven" }, call),
    await reg.call("pets", "getPet", {}, call),
    await reg.call("pets", "listPets", { limit: 1000, colour: "red" }, call),
    await reg.call("pets", "listPets", { tags: "dog" }, call),
    await reg.call("pets", "createPet", { body: { name: "Rex", id: 5 } }, call),
    await reg.call("pets", "createPet", {}, call),
  ];
  assert.equal(store.requests.length, 0);
  for (const outcome of bad) assert.equal(!outcome.ok && outcome.error.code, "invalid_input");
  const messages = bad.map((o) => (!o.ok ? o.error.message : ""));
  // Each message names the argument's path and what it must be.
  assert.match(messages[0], /^Invalid input for pets\.getPet: petId: must be integer/);
  assert.match(messages[1], /petId: .*required property 'petId'/);
  assert.match(messages[2], /colour: must NOT have additional properties; limit: must be <= 100/);
  assert.match(messages[3], /tags: must be array/);
  assert.match(messages[4], /body\.id: must NOT have additional properties/);
  assert.match(messages[5], /body: /);
});

Deno.test("openApiConnector() reports an unreachable API as connector_unavailable", async () => {
  const store = startPetstore();
  const baseUrl = store.baseUrl;
  await store[Symbol.asyncDispose]();
  const pets = openApiConnector({
    name: "pets",
    document: petstore,
    baseUrl,
    auth: { query: { key: "query-secret-9b1" } },
  });
  const list = pets.tools.find((t) => t.name === "listPets")!;
  await assert.rejects(
    () => Promise.resolve(list.execute!({}, context("listPets"))),
    (err: unknown) =>
      err instanceof CordonError && err.code === "connector_unavailable" &&
      err.message.startsWith(`GET /pets could not reach ${new URL(baseUrl).host}: `) &&
      !err.message.includes("query-secret-9b1"),
  );
});

Deno.test("openApiConnector() bounds responses by maxResponseBytes", async () => {
  await using store = startPetstore();
  const reg = registryFor(store.baseUrl, { maxResponseBytes: 64 });
  const big = await reg.call("pets", "listPets", {}, call);
  assert.equal(!big.ok && big.error.code, "value_too_large");
  assert.match(!big.ok ? big.error.message : "", /^GET \/pets returned more than 64 bytes/);
  const small = await reg.call("pets", "get_health", {}, call);
  assert.deepEqual(small, { ok: true, value: "ok" });
});

Deno.test("openApiConnector() gives up on a slow API after timeoutMs", async () => {
  await using store = startPetstore();
  const slow = openApiConnector({
    name: "slow",
    baseUrl: store.baseUrl,
    timeoutMs: 50,
    document: {
      openapi: "3.0.3",
      paths: { "/slow": { get: { operationId: "wait", responses: {} } } },
    },
  });
  assert.equal(slow.timeoutMs, 50);
  await assert.rejects(
    () => Promise.resolve(slow.tools[0].execute!({}, context("wait"))),
    (err: unknown) =>
      err instanceof CordonError && err.code === "tool_timeout" &&
      err.message === "GET /slow did not answer within 50 ms",
  );
});

Deno.test("openApiConnector() follows redirects, taking credentials only to the same origin", async () => {
  await using store = startPetstore();
  await using elsewhere = startPetstore();
  const moved = openApiConnector({
    name: "moved",
    baseUrl: store.baseUrl,
    auth: { headers: { "X-Api-Key": PETSTORE_KEY } },
    document: {
      openapi: "3.1.0",
      paths: {
        "/moved": {
          get: {
            operationId: "follow",
            parameters: [{ name: "to", in: "query", required: true, schema: { type: "string" } }],
            responses: {},
          },
        },
      },
    },
  });
  const follow = moved.tools[0];
  const same = await follow.execute!({ to: "/pets/2" }, context("follow"));
  assert.equal((same as { name: string }).name, "Tom");
  assert.equal(store.requests.at(-1)!.headers.get("x-api-key"), PETSTORE_KEY);
  await assert.rejects(
    () =>
      Promise.resolve(follow.execute!({ to: `${elsewhere.baseUrl}/pets/2` }, context("follow"))),
    (err: unknown) => err instanceof CordonError && err.details?.status === 401,
  );
  assert.equal(elsewhere.requests.length, 1);
  assert.equal(elsewhere.requests[0].headers.get("x-api-key"), null);
});
