import assert from "node:assert/strict";
import { z } from "zod";
import { MAX_INLINE_DEPTH, openApiConnector } from "../../src/connectors/openapi/mod.ts";
import type { Tool } from "../../src/connectors/types.ts";
import { CordonError } from "../../src/errors.ts";
import petstore from "../fixtures/openapi/petstore.json" with { type: "json" };

/** A bound that the schema of any petstore tool stays under: a few KB of JSON. */
const PETSTORE_SCHEMA_LIMIT = 4_000;

/** How deep the JSON of a schema may nest when components are inlined at most MAX_INLINE_DEPTH deep. */
const NESTING_LIMIT = 4 * (MAX_INLINE_DEPTH + 2);

function nestingDepth(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(nestingDepth));
}

function store(extra: Partial<Parameters<typeof openApiConnector>[0]> = {}) {
  return openApiConnector({ name: "pets", document: petstore, ...extra });
}

function tool(tools: readonly Tool[], name: string): Tool {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no tool ${name}; have ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test("openApiConnector() names tools from operationId, else from method and path", () => {
  const names = store().tools.map((t) => t.name);
  assert.deepEqual(names, [
    "listPets",
    "createPet",
    "getPet",
    "deletePet",
    "get_pets_petId_photos",
    "categories_tree",
    "listPets_2",
    "get_health",
  ]);
});

Deno.test("openApiConnector() describes the connector and each tool from the document", () => {
  const pets = store();
  assert.match(pets.description, /^Petstore: A small pet store/);
  const list = tool(pets.tools, "listPets");
  assert.equal(
    list.description,
    "List pets\n\nPets in the store, filtered by tag and status.\n\n(GET /pets)",
  );
  assert.match(tool(pets.tools, "listPets_2").description, /^Deprecated\. /);
  assert.equal(store({ description: "Mine" }).description, "Mine");
});

Deno.test("openApiConnector() marks safe methods readOnly, DELETE destructive, unsafe ones for approval", () => {
  const plain = store().tools;
  assert.deepEqual(tool(plain, "getPet").annotations, { resolution: "host", readOnly: true });
  assert.deepEqual(tool(plain, "deletePet").annotations, { resolution: "host", destructive: true });
  assert.deepEqual(tool(plain, "createPet").annotations, { resolution: "host" });
  const guarded = store({ approval: { unsafeMethods: true } }).tools;
  assert.equal(tool(guarded, "createPet").annotations.requiresApproval, true);
  assert.equal(tool(guarded, "deletePet").annotations.requiresApproval, true);
  assert.equal(tool(guarded, "getPet").annotations.requiresApproval, undefined);
});

Deno.test("openApiConnector() puts path, query and header parameters and the body in one input object", () => {
  const pets = store();
  const list = tool(pets.tools, "listPets").inputSchema;
  assert.deepEqual(Object.keys(list.properties as object), [
    "limit",
    "tags",
    "status",
    "X-Request-Id",
  ]);
  assert.equal(list.required, undefined);
  assert.equal(list.additionalProperties, false);
  assert.deepEqual((list.properties as Record<string, unknown>).tags, {
    type: "array",
    items: { type: "string" },
    description: "Only pets with one of these tags",
  });
  const get = tool(pets.tools, "getPet").inputSchema;
  assert.deepEqual(get.required, ["petId"]);
  assert.deepEqual((get.properties as Record<string, unknown>).petId, {
    type: "integer",
    minimum: 1,
    description: "The pet's id",
  });
  const photos = tool(pets.tools, "get_pets_petId_photos").inputSchema;
  assert.deepEqual(Object.keys(photos.properties as object), ["petId", "format", "header_format"]);
  const create = tool(pets.tools, "createPet").inputSchema;
  assert.deepEqual(create.required, ["body"]);
  const body = (create.properties as Record<string, Record<string, unknown>>).body;
  assert.equal(body.type, "object");
  assert.deepEqual(body.required, ["name"]);
  assert.deepEqual(tool(pets.tools, "categories_tree").inputSchema, {
    type: "object",
    properties: {},
    additionalProperties: false,
  });
});

Deno.test("openApiConnector() takes output schemas from 200 and 201 JSON responses", () => {
  const pets = store();
  const pet = tool(pets.tools, "createPet").outputSchema!;
  assert.equal(pet.type, "object");
  // `id` is readOnly: still required in what the API returns.
  assert.deepEqual(pet.required, ["id", "name"]);
  const list = tool(pets.tools, "listPets").outputSchema!;
  assert.equal(list.type, "array");
  assert.equal(tool(pets.tools, "deletePet").outputSchema, undefined);
  assert.equal(tool(pets.tools, "get_health").outputSchema, undefined);
  const tree = tool(pets.tools, "categories_tree").outputSchema!;
  assert.equal(tree.$ref, "#/$defs/Category");
  assert.deepEqual(Object.keys(tree.$defs as object), ["Category"]);
});

Deno.test("openApiConnector() keeps recursive and repeated components once, under $defs", () => {
  for (const t of store().tools) {
    for (const schema of [t.inputSchema, t.outputSchema]) {
      if (!schema) continue;
      const size = JSON.stringify(schema).length;
      assert.ok(size < PETSTORE_SCHEMA_LIMIT, `${t.name}: ${size} characters`);
    }
  }
  const pet = tool(store().tools, "getPet").outputSchema!;
  // Person is used twice (owner, vet), Category by itself: both are shared; Status once: inlined.
  assert.deepEqual(Object.keys(pet.$defs as object).sort(), ["Category", "Person"]);
  const properties = pet.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(properties.owner, { $ref: "#/$defs/Person" });
  assert.deepEqual(properties.vet, { $ref: "#/$defs/Person", description: "Who treats the pet" });
  assert.deepEqual(properties.status, { type: "string", enum: ["available", "sold"] });
});

Deno.test("openApiConnector() schemas all compile with z.fromJSONSchema and validate", () => {
  const pets = store();
  for (const t of pets.tools) {
    for (const schema of [t.inputSchema, t.outputSchema]) {
      if (schema) z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    }
  }
  const create = tool(pets.tools, "createPet");
  const deep = { name: "A", children: [{ name: "B", children: [{ name: "C" }] }] };
  assert.deepEqual(create.validateInput!({ body: { name: "Rex", category: deep } }), {
    ok: true,
    value: { body: { name: "Rex", category: deep } },
  });
  const bad = create.validateInput!({ body: { name: "Rex", category: { children: [{}] } } });
  assert.equal(bad.ok, false);
  assert.equal(!bad.ok && bad.error.code, "invalid_input");
  assert.match(
    !bad.ok ? bad.error.message : "",
    /^Invalid input for pets\.createPet: body\.category\.name: /,
  );
  const tree = z.fromJSONSchema(tool(pets.tools, "categories_tree").outputSchema as never);
  assert.equal(tree.safeParse(deep).success, true);
  assert.equal(tree.safeParse({ name: "A", children: [{ name: 1 }] }).success, false);
});

Deno.test("openApiConnector() keeps only the operations include() accepts", () => {
  const pets = store({
    include: (op) => op.method === "get" && op.tags.length === 0 && !op.deprecated,
  });
  assert.deepEqual(pets.tools.map((t) => t.name), [
    "listPets",
    "getPet",
    "get_pets_petId_photos",
    "categories_tree",
    "get_health",
  ]);
});

Deno.test("openApiConnector() refuses documents it cannot use", () => {
  const refused = (document: unknown, pattern: RegExp, extra: Record<string, unknown> = {}) => {
    assert.throws(
      () => openApiConnector({ name: "x", document: document as object, ...extra }),
      (err: unknown) =>
        err instanceof CordonError && err.code === "invalid_request" && pattern.test(err.message),
    );
  };
  const paths = { "/a": { get: { responses: {} } } };
  refused(null, /expected an object, got null/);
  refused([], /expected an object, got an array/);
  refused("{not json", /not valid JSON/);
  refused("openapi: 3.1.0\npaths: {}\n", /looks like YAML/);
  refused({ swagger: "2.0", paths }, /Swagger 2\.0 is not supported/);
  refused({ openapi: "2.0.0", paths }, /"openapi" field of version 3\.x, got "2\.0\.0"/);
  refused({ info: {}, paths }, /"openapi" field/);
  refused({ openapi: "3.1.0" }, /no paths/);
  refused({ openapi: "3.0.3", paths: {} }, /no paths/);
  refused({ openapi: "3.1.0", paths }, /GET \/a has no absolute server URL; pass baseUrl/);
  refused({ openapi: "3.1.0", servers: [{ url: "/v1" }], paths }, /pass baseUrl/);
  refused({ openapi: "3.1.0", paths }, /baseUrl "nope" is not an absolute URL/, {
    baseUrl: "nope",
  });
  refused(petstore, /timeoutMs must be a positive integer/, { timeoutMs: 0 });
  const fromText = openApiConnector({ name: "x", document: JSON.stringify(petstore) });
  assert.equal(fromText.tools.length, 8);
});

Deno.test("openApiConnector() converts a 300-operation document", () => {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) {
    schemas[`Item${i}`] = {
      type: "object",
      required: ["id"],
      properties: {
        id: { type: "string" },
        parent: { $ref: `#/components/schemas/Item${(i + 1) % 100}` },
        tags: { type: "array", items: { $ref: "#/components/schemas/Tag" } },
      },
    };
  }
  schemas.Tag = { type: "object", properties: { name: { type: "string" } } };
  for (let i = 0; i < 100; i++) {
    const ref = { $ref: `#/components/schemas/Item${i}` };
    const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
    paths[`/items${i}/{id}`] = {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: { operationId: `getItem${i}`, responses: { 200: { description: "", ...json(ref) } } },
      put: {
        operationId: `putItem${i}`,
        requestBody: { required: true, ...json(ref) },
        responses: {},
      },
      delete: {
        parameters: [{ name: "force", in: "query", schema: { type: "boolean" } }],
        responses: {},
      },
    };
  }
  const document = {
    openapi: "3.1.0",
    servers: [{ url: "https://big.example" }],
    paths,
    components: { schemas },
  };
  const started = performance.now();
  const big = openApiConnector({ name: "big", document });
  const ms = performance.now() - started;
  console.log(`    300 operations converted in ${ms.toFixed(0)} ms`);
  assert.equal(big.tools.length, 300);
  assert.equal(new Set(big.tools.map((t) => t.name)).size, 300);
  assert.equal(big.tools[2].name, "delete_items0_id");
  // Every Item reaches every other (a 100-long cycle): each appears once, and nesting stays shallow.
  const text = JSON.stringify(big.tools[0].outputSchema);
  assert.equal(text.match(/"parent":/g)?.length, 100);
  assert.ok(nestingDepth(big.tools[0].outputSchema) <= NESTING_LIMIT);
});
