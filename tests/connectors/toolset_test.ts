import assert from "node:assert/strict";
import { jsonSchema, tool } from "ai";
import { z } from "zod";
import { ConnectorRegistry } from "../../src/connectors/registry.ts";
import { toolSetConnector } from "../../src/connectors/toolset.ts";
import type { Tool, ToolContext } from "../../src/connectors/types.ts";
import { CordonError } from "../../src/errors.ts";

function context(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, executionId: "exec_test", namespace: "default", connector: "ai", tool: "t" };
}

function only(tools: readonly Tool[], name: string): Tool {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no tool ${name}`);
  return found;
}

Deno.test("toolSetConnector() turns a zod inputSchema into JSON Schema and checks with zod", () => {
  const c = toolSetConnector({
    name: "ai",
    tools: {
      forecast: tool({
        description: "Forecast for a city",
        inputSchema: z.object({ city: z.string().min(1), days: z.number().int().default(3) }),
        execute: ({ city, days }) => ({ city, days }),
      }),
    },
  });
  const t = only(c.tools, "forecast");
  assert.equal(t.description, "Forecast for a city");
  assert.deepEqual(t.inputSchema, {
    type: "object",
    properties: {
      city: { type: "string", minLength: 1 },
      days: {
        type: "integer",
        default: 3,
        minimum: Number.MIN_SAFE_INTEGER,
        maximum: Number.MAX_SAFE_INTEGER,
      },
    },
    required: ["city"],
  });
  const bad = t.validateInput!({ city: 42 });
  assert.ok(!bad.ok);
  assert.equal(bad.error.code, "invalid_input");
  assert.match(bad.error.message, /^Invalid input for ai\.forecast: city: /);
  assert.deepEqual(t.validateInput!({ city: "Oslo" }), {
    ok: true,
    value: { city: "Oslo", days: 3 },
  });
});

Deno.test("toolSetConnector() keeps a jsonSchema() schema as given and checks with its validate", () => {
  const schema = {
    type: "object",
    properties: { n: { type: "number" } },
    required: ["n"],
  } as const;
  const seen: unknown[] = [];
  const c = toolSetConnector({
    name: "ai",
    tools: {
      count: tool({
        description: "Count",
        inputSchema: jsonSchema<{ n: number }>(schema, {
          validate: (value) => {
            seen.push(value);
            const n = (value as { n?: unknown }).n;
            return typeof n === "number" && n >= 0
              ? { success: true, value: { n } }
              : { success: false, error: new Error("n must be a number of at least 0") };
          },
        }),
        execute: ({ n }) => n + 1,
      }),
    },
  });
  const t = only(c.tools, "count");
  assert.deepEqual(t.inputSchema, schema);
  const bad = t.validateInput!({ n: -1 });
  assert.ok(!bad.ok);
  assert.equal(bad.error.code, "invalid_input");
  assert.equal(bad.error.message, "Invalid input for ai.count: n must be a number of at least 0");
  assert.deepEqual(t.validateInput!({ n: 2, extra: true }), { ok: true, value: { n: 2 } });
  assert.deepEqual(seen, [{ n: -1 }, { n: 2, extra: true }]);
});

Deno.test("toolSetConnector() checks a jsonSchema() without validate against its JSON Schema", () => {
  const c = toolSetConnector({
    name: "ai",
    tools: {
      greet: tool({
        description: "Greet",
        inputSchema: jsonSchema<{ name: string }>({
          type: "object",
          properties: { name: { type: "string", minLength: 2 } },
          required: ["name"],
        }),
        execute: ({ name }) => `hi ${name}`,
      }),
    },
  });
  const t = only(c.tools, "greet");
  const missing = t.validateInput!({});
  assert.ok(!missing.ok);
  assert.equal(missing.error.code, "invalid_input");
  assert.match(missing.error.message, /name/);
  const short = t.validateInput!({ name: "x" });
  assert.ok(!short.ok);
  assert.deepEqual(t.validateInput!({ name: "Ada" }), { ok: true, value: { name: "Ada" } });
});

Deno.test("toolSetConnector() checks draft-07 and conditional JSON Schemas zod could not read", () => {
  const c = toolSetConnector({
    name: "ai",
    tools: {
      legacy: tool({
        description: "Draft-07 definitions",
        inputSchema: jsonSchema({
          type: "object",
          properties: { a: { $ref: "#/definitions/A" } },
          definitions: { A: { type: "string" } },
        }),
        execute: (x) => x,
      }),
      conditional: tool({
        description: "if/then and dependentRequired",
        inputSchema: jsonSchema({
          type: "object",
          if: { properties: { kind: { const: "card" } }, required: ["kind"] },
          then: { required: ["number"] },
          dependentRequired: { a: ["b"] },
        }),
        execute: (x) => x,
      }),
    },
  });
  const legacy = only(c.tools, "legacy").validateInput!;
  assert.deepEqual(legacy({ a: "x" }), { ok: true, value: { a: "x" } });
  const bad = legacy({ a: 1 }) as { ok: boolean; error?: { code: string } };
  assert.equal(bad.ok, false);
  assert.equal(bad.error?.code, "invalid_input");
  const conditional = only(c.tools, "conditional").validateInput!;
  assert.equal((conditional({ kind: "card", number: 1 }) as { ok: boolean }).ok, true);
  assert.equal((conditional({ kind: "card" }) as { ok: boolean }).ok, false);
  assert.equal((conditional({ a: 1 }) as { ok: boolean }).ok, false);
});

Deno.test("toolSetConnector() accepts any value for a JSON Schema that cannot compile, like the AI SDK", () => {
  const c = toolSetConnector({
    name: "ai",
    tools: {
      remote: tool({
        description: "A $ref nothing resolves",
        inputSchema: jsonSchema({ $ref: "https://example.com/schemas/nowhere.json" }),
        execute: (x) => x,
      }),
    },
  });
  assert.deepEqual(only(c.tools, "remote").validateInput!({ a: 1 }), {
    ok: true,
    value: { a: 1 },
  });
});

Deno.test("toolSetConnector() marks needsApproval tools (true or a function) requiresApproval", () => {
  const input = z.object({});
  const c = toolSetConnector({
    name: "ai",
    tools: {
      always: tool({ description: "a", inputSchema: input, needsApproval: true, execute: () => 1 }),
      sometimes: tool({
        description: "s",
        inputSchema: input,
        needsApproval: () => false,
        execute: () => 1,
      }),
      never: tool({ description: "n", inputSchema: input, needsApproval: false, execute: () => 1 }),
      plain: tool({ description: "p", inputSchema: input, execute: () => 1 }),
    },
  });
  assert.equal(only(c.tools, "always").annotations.requiresApproval, true);
  assert.equal(only(c.tools, "sometimes").annotations.requiresApproval, true);
  assert.equal(only(c.tools, "never").annotations.requiresApproval, undefined);
  assert.equal(only(c.tools, "plain").annotations.requiresApproval, undefined);
  assert.equal(only(c.tools, "plain").annotations.resolution, "host");
});

Deno.test("toolSetConnector() makes tools without execute client-resolved, checked by outputSchema", () => {
  const c = toolSetConnector({
    name: "ai",
    tools: {
      askUser: tool({
        description: "Ask the user",
        inputSchema: z.object({ question: z.string() }),
        outputSchema: z.object({ answer: z.string() }),
      }),
    },
  });
  const t = only(c.tools, "askUser");
  assert.equal(t.annotations.resolution, "client");
  assert.equal(t.execute, undefined);
  assert.deepEqual(t.outputSchema, {
    type: "object",
    properties: { answer: { type: "string" } },
    required: ["answer"],
    additionalProperties: false,
  });
  const bad = t.validateOutput!({ answer: 1 });
  assert.ok(!bad.ok);
  assert.equal(bad.error.code, "invalid_output");
  assert.deepEqual(t.validateOutput!({ answer: "yes" }), { ok: true, value: { answer: "yes" } });
});

Deno.test("toolSetConnector() passes the call's signal as abortSignal, a fresh toolCallId and context", async () => {
  const seen: {
    toolCallId: string;
    messages: unknown[];
    abortSignal?: AbortSignal;
    context: unknown;
  }[] = [];
  const c = toolSetConnector({
    name: "ai",
    context: { tenant: "t1" },
    tools: {
      probe: tool({
        description: "Probe",
        inputSchema: z.object({}),
        execute: (_input, options) => {
          seen.push(options);
          return "ok";
        },
      }),
    },
  });
  const t = only(c.tools, "probe");
  const controller = new AbortController();
  assert.equal(await t.execute!({}, context(controller.signal)), "ok");
  assert.equal(await t.execute!({}, context(controller.signal)), "ok");
  assert.equal(seen[0].abortSignal, controller.signal);
  assert.deepEqual(seen[0].messages, []);
  assert.deepEqual(seen[0].context, { tenant: "t1" });
  assert.match(seen[0].toolCallId, /^call_[0-9a-f]+$/);
  assert.notEqual(seen[0].toolCallId, seen[1].toolCallId);
});

Deno.test("toolSetConnector() tools see the abort when the registry's deadline passes", async () => {
  let aborted: unknown;
  const c = toolSetConnector({
    name: "ai",
    timeoutMs: 50,
    tools: {
      hang: tool({
        description: "Waits for its abort signal",
        inputSchema: z.object({}),
        execute: (_input, { abortSignal }) =>
          new Promise((_resolve, reject) => {
            abortSignal!.addEventListener("abort", () => {
              aborted = abortSignal!.reason;
              reject(abortSignal!.reason);
            });
          }),
      }),
    },
  });
  const out = await new ConnectorRegistry([c]).call("ai", "hang", {}, { executionId: "exec_1" });
  assert.ok(!out.ok);
  assert.equal(out.error.code, "tool_timeout");
  assert.ok(aborted instanceof DOMException && aborted.name === "TimeoutError");
});

Deno.test("toolSetConnector() runs through the registry with validated input and checked output", async () => {
  const c = toolSetConnector({
    name: "ai",
    tools: {
      add: tool({
        description: "Add",
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        outputSchema: z.number(),
        execute: ({ a, b }) => a + b,
      }),
      lie: tool({
        description: "Claims a number, returns a string",
        inputSchema: z.object({}),
        outputSchema: z.number(),
        execute: () => "seven" as unknown as number,
      }),
    },
  });
  const reg = new ConnectorRegistry([c]);
  assert.deepEqual(await reg.call("ai", "add", { a: 2, b: 3 }, { executionId: "e" }), {
    ok: true,
    value: 5,
  });
  const bad = await reg.call("ai", "add", { a: "2" }, { executionId: "e" });
  assert.ok(!bad.ok);
  assert.equal(bad.error.code, "invalid_input");
  const lie = await reg.call("ai", "lie", {}, { executionId: "e" });
  assert.ok(!lie.ok);
  assert.equal(lie.error.code, "invalid_output");
});

Deno.test("toolSetConnector() returns the last value a streaming execute yields", async () => {
  const c = toolSetConnector({
    name: "ai",
    tools: {
      progress: tool({
        description: "Streams progress",
        inputSchema: z.object({}),
        async *execute() {
          yield { done: 1 };
          yield { done: 2 };
          yield { done: 3, final: true };
        },
      }),
    },
  });
  assert.deepEqual(await only(c.tools, "progress").execute!({}, context()), {
    done: 3,
    final: true,
  });
});

Deno.test("toolSetConnector() checks an async validate at the start of execute", async () => {
  let ran = false;
  const c = toolSetConnector({
    name: "ai",
    tools: {
      slowCheck: tool({
        description: "Async validation",
        inputSchema: jsonSchema<{ id: string }>({ type: "object" }, {
          validate: (value) =>
            Promise.resolve(
              typeof (value as { id?: unknown }).id === "string"
                ? { success: true as const, value: value as { id: string } }
                : { success: false as const, error: new Error("id must be a string") },
            ),
        }),
        execute: ({ id }) => {
          ran = true;
          return id;
        },
      }),
    },
  });
  const reg = new ConnectorRegistry([c]);
  const bad = await reg.call("ai", "slowCheck", { id: 1 }, { executionId: "e" });
  assert.ok(!bad.ok);
  assert.equal(bad.error.code, "invalid_input");
  assert.match(bad.error.message, /id must be a string/);
  assert.equal(ran, false);
  assert.deepEqual(await reg.call("ai", "slowCheck", { id: "x" }, { executionId: "e" }), {
    ok: true,
    value: "x",
  });
});

Deno.test("toolSetConnector() start() fills in a JSON Schema given as a promise", async () => {
  const c = toolSetConnector({
    name: "ai",
    tools: {
      later: tool({
        description: "Schema loaded later",
        inputSchema: jsonSchema(() =>
          Promise.resolve({ type: "object", properties: { q: { type: "string" } } })
        ),
        execute: () => null,
      }),
    },
  });
  assert.deepEqual(c.tools[0].inputSchema, {});
  await c.start!();
  assert.deepEqual(c.tools[0].inputSchema, {
    type: "object",
    properties: { q: { type: "string" } },
  });
  const bad = c.tools[0].validateInput!({ q: 1 });
  assert.ok(!bad.ok);
});

Deno.test("toolSetConnector() refuses a tool the model provider executes", () => {
  const hosted = {
    type: "provider",
    id: "openai.web_search",
    isProviderExecuted: true,
    args: {},
    inputSchema: z.object({}),
  } as const;
  assert.throws(
    () => toolSetConnector({ name: "ai", tools: { search: hosted } }),
    (err) =>
      err instanceof CordonError && err.code === "invalid_request" &&
      /openai\.web_search runs at the model provider/.test(err.message),
  );
});

Deno.test("toolSetConnector() keeps client tools by default and refuses an unknown clientTools", () => {
  const tools = {
    ask: tool({ description: "Ask", inputSchema: z.object({}) }),
  };
  assert.deepEqual(toolSetConnector({ name: "ai", tools }).tools.map((t) => t.name), ["ask"]);
  assert.throws(
    () => toolSetConnector({ name: "ai", tools, clientTools: "drop" as "skip" }),
    (e: unknown) => e instanceof CordonError && e.code === "invalid_request",
  );
});
