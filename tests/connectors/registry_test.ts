import assert from "node:assert/strict";
import { z } from "zod";
import { defineConnector } from "../../src/connectors/define.ts";
import { ConnectorRegistry } from "../../src/connectors/registry.ts";
import { CordonError } from "../../src/errors.ts";

const opts = { executionId: "exec_test" };

function makeRegistry() {
  let running = 0;
  let peak = 0;
  const slow = defineConnector({
    name: "slow",
    description: "Slow things",
    concurrency: 2,
    tools: {
      wait: {
        description: "Wait ms",
        input: z.object({ ms: z.number().int().min(0) }),
        execute: async ({ ms }, ctx) => {
          running++;
          peak = Math.max(peak, running);
          try {
            await new Promise((resolve, reject) => {
              const t = setTimeout(resolve, ms);
              ctx.signal.addEventListener("abort", () => {
                clearTimeout(t);
                reject(ctx.signal.reason);
              });
            });
            return ms;
          } finally {
            running--;
          }
        },
        timeoutMs: 200,
      },
    },
  });
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add",
        input: z.object({ a: z.number(), b: z.number() }),
        output: z.number(),
        execute: ({ a, b }) => a + b,
      },
      lie: {
        description: "Returns a string",
        input: z.object({}),
        output: z.number(),
        execute: () => "x" as never,
      },
      fail: {
        description: "Throws",
        input: z.object({}),
        execute: () => {
          throw Object.assign(new Error("backend down"), { code: "ECONNREFUSED" });
        },
      },
    },
  });
  return { registry: new ConnectorRegistry([math, slow]), peak: () => peak };
}

Deno.test("ConnectorRegistry.call() validates input on the host before execute", async () => {
  const { registry } = makeRegistry();
  const out = await registry.call("math", "add", { a: "1", b: 2 }, opts);
  assert.equal(out.ok, false);
  if (out.ok) return;
  assert.equal(out.error.code, "invalid_input");
  assert.match(out.error.message, /math\.add: a: .*number/);
  assert.deepEqual((out.error.details!.issues as { path: string }[])[0].path, "a");
});

Deno.test("ConnectorRegistry.call() validates output when a schema is given", async () => {
  const { registry } = makeRegistry();
  const out = await registry.call("math", "lie", {}, opts);
  assert.equal(!out.ok && out.error.code, "invalid_output");
});

Deno.test("ConnectorRegistry.call() turns a thrown error into tool_error with its code", async () => {
  const { registry } = makeRegistry();
  const out = await registry.call("math", "fail", {}, opts);
  assert.ok(!out.ok);
  assert.equal(out.error.code, "tool_error");
  assert.equal(out.error.message, "backend down");
  assert.deepEqual(out.error.details, { code: "ECONNREFUSED" });
});

Deno.test("ConnectorRegistry.call() names what exists when a connector or tool does not", async () => {
  const { registry } = makeRegistry();
  const a = await registry.call("nope", "x", {}, opts);
  assert.ok(!a.ok && a.error.code === "connector_not_found" && /math, slow/.test(a.error.message));
  const b = await registry.call("math", "mul", {}, opts);
  assert.ok(!b.ok && b.error.code === "tool_not_found" && /add, lie, fail/.test(b.error.message));
});

Deno.test("ConnectorRegistry.call() times out a slow call and aborts its signal", async () => {
  const { registry } = makeRegistry();
  const out = await registry.call("slow", "wait", { ms: 5_000 }, opts);
  assert.ok(!out.ok && out.error.code === "tool_timeout");
});

Deno.test("ConnectorRegistry.call() bounds concurrency, and the timeout starts when the call starts", async () => {
  const { registry, peak } = makeRegistry();
  // Six calls of 150 ms with a concurrency of 2 take ~450 ms in all, but each
  // is under its 200 ms limit because queueing does not count.
  const outs = await Promise.all(
    Array.from({ length: 6 }, () => registry.call("slow", "wait", { ms: 150 }, opts)),
  );
  assert.ok(outs.every((o) => o.ok), JSON.stringify(outs));
  assert.equal(peak(), 2);
});

Deno.test("ConnectorRegistry.call() gives up a queued call when the execution ends", async () => {
  const { registry } = makeRegistry();
  const ended = new AbortController();
  const busy = [1, 2].map(() => registry.call("slow", "wait", { ms: 100 }, opts));
  const queued = registry.call("slow", "wait", { ms: 1 }, { ...opts, signal: ended.signal });
  ended.abort();
  const out = await queued;
  assert.ok(!out.ok && /cancelled/.test(out.error.message));
  await Promise.all(busy);
});

Deno.test("ConnectorRegistry.add() refuses reserved, malformed and duplicate names", () => {
  const make = (name: string) => defineConnector({ name, description: "", tools: {} });
  const reg = new ConnectorRegistry([make("ok_name")]);
  for (const bad of ["console", "Deno", "codemode", "has-dash", "1abc", "", "__proto__"]) {
    assert.throws(
      () => reg.add(make(bad)),
      (e: unknown) => e instanceof CordonError && e.code === "invalid_request",
      bad,
    );
  }
  assert.throws(() => reg.add(make("ok_name")), /taken/);
});

Deno.test("defineConnector() produces JSON Schemas and annotations", () => {
  const c = defineConnector({
    name: "files",
    description: "Files",
    tools: {
      remove: {
        description: "Delete a file",
        input: z.object({ path: z.string().describe("Absolute path") }),
        destructive: true,
        requiresApproval: true,
        execute: () => true,
      },
      pick: {
        description: "Chosen by a person",
        input: z.object({ options: z.array(z.string()) }),
      },
    },
  });
  const [remove, pick] = c.tools;
  assert.equal(remove.inputSchema.type, "object");
  assert.deepEqual((remove.inputSchema.properties as Record<string, unknown>).path, {
    type: "string",
    description: "Absolute path",
  });
  assert.deepEqual(remove.annotations, {
    destructive: true,
    requiresApproval: true,
    resolution: "host",
  });
  assert.equal(pick.annotations.resolution, "client");
  assert.equal(pick.execute, undefined);
});
