import assert from "node:assert/strict";
import {
  assertCalls,
  callsTo,
  createTestKit,
  expectCompleted,
  expectError,
  expectPaused,
} from "../../testing.ts";
import { assertFails, shop } from "./fixtures.ts";

Deno.test("expectCompleted() returns the result and fails with the reason on other outcomes", async () => {
  await using kit = await createTestKit({ connectors: [shop().connector] });
  assert.equal(expectCompleted(await kit.run("return 6 * 7")), 42);
  const failed = await kit.run('console.warn("looking");\nawait shop.find({ id: "missing" })');
  assertFails(
    () => expectCompleted(failed),
    /status "error": tool_error: shop\.find: No order "missing" \(line 2, column 1\)/,
    /#1 shop\.find \{ id: "missing" \} → error/,
    /\[warn\] looking/,
  );
  const paused = await kit.run('return await shop.ship({ id: "o2" })');
  assertFails(() => expectCompleted(paused), /paused, waiting for #1 shop\.ship.*needs approval/);
  const typeError = await kit.run("return shop.find({ id: 1 })", undefined, {
    typecheck: "strict",
  });
  assertFails(() => expectCompleted(typeError), /type_error/, /TS2322 line 1/);
});

Deno.test("expectPaused() and expectError() fail on the wrong outcome or code", async () => {
  await using kit = await createTestKit({ connectors: [shop().connector] });
  const done = await kit.run("return 1");
  assertFails(() => expectPaused(done), /Expected the run to pause.*completed with 1/);
  assertFails(() => expectError(done), /Expected the run to fail, but it completed/);
  const failed = await kit.run("throw new Error('boom')");
  assert.equal(expectError(failed).code, "script_error");
  assert.equal(expectError(failed, "script_error").message, "Error: boom");
  assertFails(
    () => expectError(failed, "tool_error"),
    /fail with tool_error.*script_error: Error: boom/,
  );
  const paused = await kit.run('return await shop.ship({ id: "o3" })');
  assert.deepEqual(expectPaused(paused).pending.map((p) => p.tool), ["ship"]);
  const rejected = await kit.reject(paused);
  assert.equal(expectError(rejected, "rejected").code, "rejected");
});

Deno.test("assertCalls() passes a partial match of the calls in order", async () => {
  await using kit = await createTestKit({ connectors: [shop().connector] });
  const result = await kit.run(`
    await shop.find({ id: "a" });
    await shop.find({ id: "b", full: true }).catch(() => {});
    await shop.find({ id: "missing" }).catch(() => {});
  `);
  expectCompleted(result);
  assertCalls(result, [
    { tool: "shop.find", args: { id: "a" } },
    { tool: "shop.find", args: { full: true } },
    { tool: "shop.find", state: "error" },
  ]);
  assertCalls(result.calls, [{ tool: "shop.find" }, { tool: "shop.find" }, { tool: "shop.find" }]);
  const stored = await kit.runtime.execution(result.executionId);
  assertCalls(stored!, [{ tool: "shop.find", args: { id: "a" }, state: "applied" }, {
    tool: "shop.find",
  }, { tool: "shop.find", args: { id: "missing" } }]);
});

Deno.test("assertCalls() fails on a wrong tool, argument, state, order, missing or extra call", async () => {
  await using kit = await createTestKit({ connectors: [shop().connector] });
  const result = await kit.run(`
    await shop.find({ id: "a" });
    await shop.find({ id: "missing" }).catch(() => {});
  `);
  const a = { tool: "shop.find", args: { id: "a" } };
  const missing = { tool: "shop.find", args: { id: "missing" } };
  assertFails(
    () => assertCalls(result, [a, { tool: "shop.find", args: { id: "b" } }]),
    /differ at call 2: shop\.find args\.id: expected "b", got "missing"/,
    /✓ 1\. shop\.find \{ id: "a" \} → applied/,
    /✗ 2\. shop\.find \{ id: "missing" \} → error/,
  );
  assertFails(() => assertCalls(result, [missing, a]), /differ at call 1/);
  assertFails(() => assertCalls(result, [a]), /differ at call 2: unexpected shop\.find/);
  assertFails(
    () => assertCalls(result, [a, missing, { tool: "shop.ship" }]),
    /differ at call 3: expected shop\.ship \(any args\), but no call was made/,
  );
  assertFails(
    () => assertCalls(result, [a, { ...missing, state: "applied" }]),
    /expected state applied, got error \(tool_error: No order "missing"\)/,
  );
  assertFails(
    () => assertCalls(result, [{ tool: "shop.ship" }, missing]),
    /expected shop\.ship, got shop\.find/,
  );
  assertFails(
    () => assertCalls(result, [{ tool: "shop.find", args: { id: "a", extra: 1 } }, missing]),
    /args\.extra: missing \(expected 1\)/,
  );
  assertFails(() => assertCalls(result, []), /differ at call 1: unexpected/);
});

Deno.test("assertCalls() matches arrays item by item and treats other values as deeply equal", async () => {
  const { connector } = shop();
  await using kit = await createTestKit({ connectors: [connector] });
  const result = await kit.run('return await shop.ask({ question: "Size?" })');
  const calls = [{ ...result.calls[0], args: { tags: ["a", { b: 1, c: 2 }], n: null } }];
  assertCalls(calls, [{ tool: "shop.ask", args: { tags: ["a", { b: 1 }], n: null } }]);
  assertFails(
    () => assertCalls(calls, [{ tool: "shop.ask", args: { tags: ["a"] } }]),
    /args\.tags: expected 1 items, got 2/,
  );
  assertFails(
    () => assertCalls(calls, [{ tool: "shop.ask", args: { tags: ["a", { b: 2 }] } }]),
    /args\.tags\[1\]\.b: expected 2, got 1/,
  );
  assertFails(
    () => assertCalls(calls, [{ tool: "shop.ask", args: { n: 0 } }]),
    /args\.n: expected 0, got null/,
  );
});

Deno.test("callsTo() picks one tool's or one connector's calls, leaving out codemode.step", async () => {
  await using kit = await createTestKit({ connectors: [shop().connector] });
  const result = await kit.run(`
    const n = await codemode.step("pick", () => 2);
    await shop.find({ id: String(n) });
    return await shop.ship({ id: "2" });
  `);
  assert.deepEqual(result.calls.map((c) => c.kind), ["step", "tool", "tool"]);
  assert.deepEqual(callsTo(result, "shop.find").map((c) => c.args), [{ id: "2" }]);
  assert.deepEqual(callsTo(result, "shop").map((c) => c.tool), ["find", "ship"]);
  assert.deepEqual(callsTo(result, "shop.nope"), []);
  assertCalls(result, [{ tool: "shop.find" }, { tool: "shop.ship", state: "pending" }]);
});
