import assert from "node:assert/strict";
import { layoutInput } from "../../src/connectors/openapi/input.ts";
import { assignToolNames, MAX_TOOL_NAME_LENGTH } from "../../src/connectors/openapi/names.ts";
import {
  listOperations,
  MAX_SCHEMA_CHARS,
  type OpenApiDocument,
  readOpenApiDocument,
  toJsonSchema,
} from "../../src/connectors/openapi/mod.ts";
import { buildRequest } from "../../src/connectors/openapi/request.ts";
import { compileJsonSchema } from "../../src/connectors/json_schema.ts";
import type { JsonSchema } from "../../src/connectors/types.ts";

/** Levels of the doubling chain: inlined naively it would be 2^30 copies. */
const DOUBLING_LEVELS = 30;

/** Where the doubling chain's schema must stay: a few hundred bytes per level. */
const DOUBLING_LIMIT = DOUBLING_LEVELS * 300;

function docWith(schemas: Record<string, unknown>, paths: Record<string, unknown> = { "/": {} }) {
  return readOpenApiDocument({ openapi: "3.1.0", paths, components: { schemas } });
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The converted schema as the connector checks arguments with it. */
function compile(schema: unknown) {
  const compiled = compileJsonSchema(schema as JsonSchema);
  return { safeParse: (value: unknown) => ({ success: compiled.check(value).length === 0 }) };
}

Deno.test("toJsonSchema() keeps a chain of doubly used components linear in size", () => {
  const schemas: Record<string, unknown> = { [`L${DOUBLING_LEVELS}`]: { type: "string" } };
  for (let i = 0; i < DOUBLING_LEVELS; i++) {
    schemas[`L${i}`] = {
      type: "object",
      properties: { left: ref(`L${i + 1}`), right: ref(`L${i + 1}`) },
    };
  }
  const schema = toJsonSchema(ref("L0"), docWith(schemas), "response");
  const size = JSON.stringify(schema).length;
  assert.ok(size < DOUBLING_LIMIT, `${size} characters`);
  assert.equal(Object.keys(schema.$defs as object).length, DOUBLING_LEVELS);
  const parse = compile(schema);
  assert.equal(parse.safeParse({ left: { left: { right: {} } } }).success, true);
  assert.equal(parse.safeParse({ left: { left: 7 } }).success, false);
});

Deno.test("toJsonSchema() cuts far components once a schema is over the size budget", () => {
  const schemas: Record<string, unknown> = {};
  const words = "a long description that repeats ".repeat(8);
  for (let i = 0; i < 40; i++) {
    const properties: Record<string, unknown> = { next: ref(`Big${i + 1}`) };
    for (let p = 0; p < 20; p++) properties[`field${p}`] = { type: "string", description: words };
    schemas[`Big${i}`] = { type: "object", properties };
  }
  schemas.Big40 = { type: "string" };
  const schema = toJsonSchema(ref("Big0"), docWith(schemas), "response");
  const text = JSON.stringify(schema);
  assert.ok(text.length <= MAX_SCHEMA_CHARS, `${text.length} characters`);
  assert.match(text, /"description":"Big\d+: not expanded, to keep the schema small"/);
  assert.ok(text.includes('"field19"'));
  // Near components are kept whole, and so still checked.
  assert.equal(compile(schema).safeParse({ field0: "x", next: { next: {} } }).success, true);
  assert.equal(compile(schema).safeParse({ next: { field0: 5 } }).success, false);
});

Deno.test("toJsonSchema() turns OpenAPI 3.0 keywords into JSON Schema the validator checks", () => {
  const doc = docWith({ Pet: { type: "object", properties: { name: { type: "string" } } } });
  const schema = toJsonSchema(
    {
      type: "object",
      properties: {
        a: { type: "string", nullable: true, example: "x", "x-internal": true, xml: { name: "a" } },
        b: { type: "string", enum: ["p", "q"], nullable: true },
        c: { allOf: [ref("Pet")], nullable: true },
        d: { ...ref("Pet"), nullable: true },
        e: { type: "number", minimum: 1, exclusiveMinimum: true },
        f: {
          oneOf: [{ type: "object" }, { type: "object", properties: { k: { type: "string" } } }],
          discriminator: { propertyName: "k" },
        },
        g: { type: "string", pattern: "(?<broken" },
        h: { if: { type: "string" }, then: { minLength: 2 }, not: { type: "number" } },
        i: { type: "file" },
        j: false,
      },
    },
    doc,
    "request",
  );
  const p = schema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(p.a, { type: ["string", "null"], examples: ["x"] });
  assert.deepEqual(p.b, { type: ["string", "null"], enum: ["p", "q", null] });
  assert.deepEqual(p.e, { type: "number", exclusiveMinimum: 1 });
  assert.deepEqual(p.g, { type: "string" });
  // Conditional keywords are kept and checked (zod could not read them, so they were dropped).
  assert.deepEqual(p.h, {
    if: { type: "string" },
    then: { minLength: 2 },
    not: { type: "number" },
  });
  assert.deepEqual(p.i, {});
  assert.equal(p.f.anyOf instanceof Array, true);
  const parse = compile(schema);
  assert.equal(
    parse.safeParse({ a: null, b: null, c: null, d: null, f: { k: "v" }, g: "anything" }).success,
    true,
  );
  assert.equal(parse.safeParse({ b: "r" }).success, false);
  assert.equal(parse.safeParse({ e: 1 }).success, false);
  assert.equal(parse.safeParse({ d: { name: 3 } }).success, false);
  assert.equal(parse.safeParse({ j: 1 }).success, false);
  assert.equal(parse.safeParse({ h: "x" }).success, false, "then: minLength 2");
  assert.equal(parse.safeParse({ h: 5 }).success, false, "not: a number");
  assert.equal(parse.safeParse({ h: "xy" }).success, true);
});

Deno.test("toJsonSchema() leaves readOnly properties optional in requests, writeOnly in responses", () => {
  const doc = docWith({
    Id: { type: "integer", readOnly: true },
    User: {
      type: "object",
      required: ["id", "name", "password"],
      properties: {
        id: ref("Id"),
        name: { type: "string" },
        password: { type: "string", writeOnly: true },
      },
    },
  });
  assert.deepEqual(toJsonSchema(ref("User"), doc, "request").required, ["name", "password"]);
  assert.deepEqual(toJsonSchema(ref("User"), doc, "response").required, ["id", "name"]);
});

Deno.test("toJsonSchema() replaces references it cannot follow with a described any", () => {
  const schema = toJsonSchema(
    {
      type: "object",
      properties: { a: ref("Missing"), b: { $ref: "other.json#/Pet" } },
    },
    docWith({}),
    "response",
  );
  assert.deepEqual(schema.properties, {
    a: { description: "Missing: unresolved reference #/components/schemas/Missing" },
    b: { description: "Pet: unresolved reference other.json#/Pet" },
  });
  assert.equal(compile(schema).safeParse({ a: 1, b: [2] }).success, true);
});

Deno.test("buildRequest() serializes parameters by style and adds host credentials last", () => {
  const doc = readOpenApiDocument({
    openapi: "3.1.0",
    paths: {
      "/files/{path}/{coords}/{point}": {
        post: {
          parameters: [
            { name: "path", in: "path", required: true, schema: { type: "string" } },
            {
              name: "coords",
              in: "path",
              required: true,
              style: "label",
              schema: { type: "array" },
            },
            {
              name: "point",
              in: "path",
              required: true,
              style: "matrix",
              explode: true,
              schema: { type: "object" },
            },
            { name: "ids", in: "query", explode: false, schema: { type: "array" } },
            { name: "filter", in: "query", style: "deepObject", schema: { type: "object" } },
            {
              name: "names",
              in: "query",
              style: "pipeDelimited",
              explode: false,
              schema: { type: "array" },
            },
            {
              name: "where",
              in: "query",
              content: { "application/json": { schema: { type: "object" } } },
            },
            { name: "session", in: "cookie", schema: { type: "string" } },
            { name: "X-Tags", in: "header", schema: { type: "array" } },
          ],
          requestBody: {
            content: { "application/x-www-form-urlencoded": { schema: { type: "object" } } },
          },
          responses: {},
        },
      },
    },
  });
  const [op] = listOperations(doc).operations;
  const layout = layoutInput(op);
  const request = buildRequest(
    {
      method: "POST",
      path: op.path,
      baseUrl: "https://api.example/v1/",
      fields: layout.fields,
      body: op.body,
    },
    {
      path: "a/b c",
      coords: [1, 2],
      point: { x: 1, y: 2 },
      ids: [3, 4],
      filter: { kind: "dog", age: 2 },
      names: ["x", "y"],
      where: { a: 1 },
      session: "s 1",
      "X-Tags": ["p", "q"],
      body: { name: "Rex", tags: ["a", "b"] },
    },
    { headers: { "X-Key": "k" }, query: { token: "t" } },
  );
  assert.equal(request.shownPath, "/v1/files/a%2Fb%20c/.1,2/;x=1;y=2");
  assert.equal(
    request.url.search,
    "?ids=3%2C4&filter%5Bkind%5D=dog&filter%5Bage%5D=2&names=x%7Cy&where=%7B%22a%22%3A1%7D&token=t",
  );
  assert.equal(request.headers.get("cookie"), "session=s%201");
  assert.equal(request.headers.get("x-tags"), "p,q");
  assert.equal(request.headers.get("x-key"), "k");
  assert.equal(request.headers.get("content-type"), "application/x-www-form-urlencoded");
  assert.equal(request.body, "name=Rex&tags=a&tags=b");
});

Deno.test("assignToolNames() sanitizes ids, avoids forbidden names and tells duplicates apart", () => {
  const long = "x".repeat(100);
  const names = assignToolNames([
    { method: "get", path: "/a", operationId: "pets.list-all" },
    { method: "get", path: "/b", operationId: "123abc" },
    { method: "get", path: "/c", operationId: "constructor" },
    { method: "get", path: "/d", operationId: "__proto__" },
    { method: "get", path: "/e", operationId: "!!!" },
    { method: "get", path: "/", operationId: undefined },
    { method: "get", path: "/f", operationId: long },
    { method: "get", path: "/g", operationId: long },
    { method: "get", path: "/h", operationId: "pets.list-all" },
  ]);
  assert.deepEqual(names.slice(0, 6), [
    "pets_list_all",
    "op_123abc",
    "constructor_",
    "proto",
    "get_e",
    "get",
  ]);
  assert.equal(names[6], "x".repeat(MAX_TOOL_NAME_LENGTH));
  assert.equal(names[7], `${"x".repeat(MAX_TOOL_NAME_LENGTH - 2)}_2`);
  assert.equal(names[8], "pets_list_all_2");
  for (const name of names) assert.match(name, /^[A-Za-z_][A-Za-z0-9_]{0,63}$/);
});

Deno.test("listOperations() skips operations whose required body it cannot send", () => {
  const doc: OpenApiDocument = readOpenApiDocument({
    openapi: "3.0.3",
    paths: {
      "/upload": {
        post: {
          requestBody: { required: true, content: { "multipart/form-data": {} } },
          responses: {},
        },
        put: { requestBody: { content: { "application/octet-stream": {} } }, responses: {} },
        patch: {
          requestBody: {
            content: { "application/merge-patch+json": { schema: { type: "object" } } },
          },
          responses: {},
        },
      },
    },
  });
  const { operations, skipped } = listOperations(doc);
  assert.deepEqual(skipped, [{
    method: "post",
    path: "/upload",
    reason: "its required body is multipart/form-data, which is not sent",
  }]);
  assert.deepEqual(operations.map((o) => [o.method, o.body?.mediaType]), [
    ["put", undefined],
    ["patch", "application/merge-patch+json"],
  ]);
});
