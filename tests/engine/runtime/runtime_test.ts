import assert from "node:assert/strict";
import { z } from "zod";
import {
  createRuntime,
  defineConnector,
  type ErrorResult,
  type ExecuteResult,
  type RuntimeOptions,
} from "../../../mod.ts";
import { assertNoSandboxChildren } from "../../_helpers/processes.ts";

function makeConnectors() {
  const counts = { add: 0, slowPeak: 0, slowRunning: 0 };
  const math = defineConnector({
    name: "math",
    description: "Arithmetic",
    tools: {
      add: {
        description: "Add two numbers",
        input: z.object({ a: z.number(), b: z.number() }),
        output: z.number(),
        execute: ({ a, b }) => {
          counts.add++;
          return a + b;
        },
      },
      echo: { description: "Echo", input: z.unknown(), execute: (v) => v },
      fail: {
        description: "Always fails",
        input: z.object({}),
        execute: () => {
          throw new Error("backend down");
        },
      },
    },
  });
  const slow = defineConnector({
    name: "slow",
    description: "Slow",
    concurrency: 2,
    tools: {
      wait: {
        description: "Wait",
        input: z.object({ ms: z.number() }),
        timeoutMs: 300,
        execute: async ({ ms }) => {
          counts.slowRunning++;
          counts.slowPeak = Math.max(counts.slowPeak, counts.slowRunning);
          await new Promise((r) => setTimeout(r, ms));
          counts.slowRunning--;
          return ms;
        },
      },
    },
  });
  return { connectors: [math, slow], counts };
}

async function withRuntime(
  fn: (
    rt: Awaited<ReturnType<typeof createRuntime>>,
    counts: ReturnType<typeof makeConnectors>["counts"],
  ) => Promise<void>,
  options: RuntimeOptions = {},
): Promise<void> {
  const { connectors, counts } = makeConnectors();
  {
    await using rt = await createRuntime({
      connectors,
      pool: { size: 1 },
      db: ":memory:",
      ...options,
    });
    await fn(rt, counts);
    // The host is healthy after whatever the test did.
    const after = await rt.execute({ code: "return 'still here'" });
    assert.equal(after.status, "completed", JSON.stringify(after));
  }
  await assertNoSandboxChildren();
}

function expectError(r: ExecuteResult, code: string): ErrorResult {
  assert.ok(
    r.status === "error" || r.status === "rejected",
    `expected ${code}, got ${Deno.inspect(r).slice(0, 400)}`,
  );
  assert.equal(r.error.code, code, JSON.stringify(r.error));
  return r;
}

function expectResult(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  return r.result;
}

Deno.test("execute() runs the README example: a tool call through the sandbox", async () => {
  await withRuntime(async (rt, counts) => {
    const out = await rt.execute({ code: "return await math.add({ a: 1, b: 2 })" });
    assert.equal(expectResult(out), 3);
    assert.match(out.executionId, /^exec_[0-9a-f]{32}$/);
    assert.equal(out.meta.executionId, out.executionId);
    assert.equal(out.calls.length, 1);
    assert.deepEqual(
      { ...out.calls[0], durationMs: 0 },
      {
        seq: 1,
        connector: "math",
        tool: "add",
        args: { a: 1, b: 2 },
        kind: "tool",
        state: "applied",
        durationMs: 0,
      },
    );
    assert.equal(counts.add, 1);
    assert.equal(out.meta.calls, 1);
    assert.equal(out.meta.timeoutMs, 30_000);
    assert.equal(out.meta.maxTimeoutMs, 120_000);
    assert.equal(out.meta.memoryGuard, rt.capabilities().memoryGuard.kind);
    assert.ok(out.meta.durationMs > 0);
  });
});

Deno.test("execute() accepts a script body, an async function and a module", async () => {
  await withRuntime(async (rt) => {
    const input = { a: 20, b: 22 };
    const forms = {
      script: "const s: number = await math.add(input);\nreturn s;",
      function: "async (input: { a: number; b: number }) => await math.add(input)",
      module:
        "export default async function (input: { a: number; b: number }) {\n  return await math.add(input);\n}",
    };
    for (const [form, code] of Object.entries(forms)) {
      const r = await rt.execute({ code, input });
      assert.equal(expectResult(r), 42, form);
      assert.equal(r.meta.form, form);
    }
    assert.deepEqual(expectResult(await rt.execute({ code: "export default { fixed: true }" })), {
      fixed: true,
    });
  });
});

Deno.test("execute() carries bytes, bigints, dates and undefined both ways", async () => {
  await withRuntime(async (rt) => {
    const input = {
      bytes: new Uint8Array([1, 2, 3]),
      big: 2n ** 70n,
      when: new Date(1234),
      list: [1, undefined],
    };
    const r = await rt.execute({
      code: `
        const echoed = await math.echo(input);
        return {
          sameBytes: echoed.bytes instanceof Uint8Array && echoed.bytes.join() === "1,2,3",
          big: echoed.big * 2n,
          when: new Date(echoed.when.getTime() + 1),
          list: echoed.list,
        };`,
      input,
    });
    assert.deepEqual(expectResult(r), {
      sameBytes: true,
      big: 2n ** 71n,
      when: new Date(1235),
      list: [1, undefined],
    });
  });
});

Deno.test("execute() captures console output by level, bounded inline", async () => {
  await withRuntime(async (rt) => {
    const r = await rt.execute({
      code:
        'console.log("hello", { a: 1 }); console.warn("careful"); console.error(new Error("bad").message); return 1',
    });
    expectResult(r);
    assert.deepEqual(r.logs.map((l) => [l.level, l.message]), [["log", "hello { a: 1 }"], [
      "warn",
      "careful",
    ], [
      "error",
      "bad",
    ]]);
    assert.equal(r.meta.logsTruncated, false);

    const big = await rt.execute({
      code:
        'for (let i = 0; i < 100; i++) console.log("line " + i + " " + "x".repeat(100)); return 1',
      limits: { maxInlineConsoleBytes: 1_000, maxConsoleBytes: 5_000 },
    });
    expectResult(big);
    assert.ok(big.logs.length > 0 && big.logs.length <= 10, String(big.logs.length));
    assert.equal(big.logs[0].message.startsWith("line 0 "), true);
    assert.equal(big.meta.logsTruncated, true);
    assert.ok(big.meta.logsDropped > 50, String(big.meta.logsDropped));
  });
});

Deno.test("execute() lets a failed tool call be caught, with its code", async () => {
  await withRuntime(async (rt) => {
    const r = await rt.execute({
      code: `
        const seen = [];
        try { await math.add({ a: "one", b: 2 }); } catch (e) { seen.push(e.code, e.message); }
        try { await math.fail({}); } catch (e) { seen.push(e.code, e.message); }
        return seen;`,
    });
    const seen = expectResult(r) as string[];
    assert.equal(seen[0], "invalid_input");
    assert.match(seen[1], /^math\.add: Invalid input for math\.add: a: /);
    assert.deepEqual(seen.slice(2), ["tool_error", "math.fail: backend down"]);
    assert.deepEqual(r.calls.map((c) => c.state), ["error", "error"]);
    assert.equal(r.calls[0].error?.code, "invalid_input");
  });
});

Deno.test("execute() reports an uncaught tool error with its code and the script's line", async () => {
  await withRuntime(async (rt) => {
    const r = expectError(
      await rt.execute({ code: "const a = 1;\nawait math.fail({});\nreturn a" }),
      "tool_error",
    );
    assert.equal(r.error.location?.line, 2);
    assert.match(r.error.message, /math\.fail: backend down/);
  });
});

Deno.test("execute() reports a thrown error as script_error at the user's line and column", async () => {
  await withRuntime(async (rt) => {
    const r = expectError(
      await rt.execute({
        code:
          "interface X { a: number }\nconst x: X = { a: 1 };\n  throw new TypeError('nope ' + x.a);",
      }),
      "script_error",
    );
    assert.equal(r.error.message, "TypeError: nope 1");
    assert.deepEqual(r.error.location, { line: 3, column: 9 });
    assert.deepEqual(r.error.details, { name: "TypeError" });
    const thrownString = expectError(await rt.execute({ code: "throw 'plain'" }), "script_error");
    assert.equal(thrownString.error.message, "Uncaught plain");
  });
});

Deno.test("execute() returns syntax errors as diagnostics before any child is spawned", async () => {
  // A Deno path that cannot spawn proves no child was needed.
  await using rt = await createRuntime({
    pool: { size: 0 },
    sandbox: { denoPath: "/nonexistent/deno" },
  });
  const r = expectError(
    await rt.execute({ code: "const ok = 1;\nconst broken = ;" }),
    "syntax_error",
  );
  assert.deepEqual(r.error.location, { line: 2, column: 16 });
  assert.deepEqual(r.diagnostics, [{
    code: "syntax_error",
    message: r.error.message,
    severity: "error",
    line: 2,
    column: 16,
  }]);
  // The same runtime fails to spawn for valid code, with a typed error.
  expectError(await rt.execute({ code: "return 1" }), "spawn_failed");
});

Deno.test("execute() kills a busy loop at its deadline with sandbox_timeout", async () => {
  await withRuntime(async (rt) => {
    const t = performance.now();
    const r = expectError(
      await rt.execute({ code: "while (true) {}", timeoutMs: 300 }),
      "sandbox_timeout",
    );
    assert.ok(performance.now() - t < 5_000);
    assert.deepEqual(r.error.details, { timeoutMs: 300 });
    expectError(
      await rt.execute({ code: "for (;;) await null;", timeoutMs: 300 }),
      "sandbox_timeout",
    );
  });
});

Deno.test("execute() stops a heap bomb with sandbox_memory", async () => {
  await withRuntime(async (rt) => {
    const r = expectError(
      await rt.execute({
        code: "const a = []; while (true) a.push(new Array(1e5).fill('x'));",
        limits: { heapMiB: 64 },
      }),
      "sandbox_memory",
    );
    // Either guard may catch it first; both say which.
    assert.ok(["heap", "cgroup"].includes(String(r.error.details?.guard)), JSON.stringify(r.error));
  });
});

Deno.test("execute() stops an ArrayBuffer bomb where a cgroup guard is active", async () => {
  await withRuntime(async (rt) => {
    const guard = rt.capabilities().memoryGuard.kind;
    const r = await rt.execute({
      code:
        "const keep = []; for (let i = 0; i < 40; i++) { const b = new Uint8Array(64 * 1024 * 1024); b.fill(1); keep.push(b); } return keep.length",
      limits: { memoryMiB: 256 },
      timeoutMs: 20_000,
    });
    if (guard === "heap-only") {
      // Reported, not blocked: the capability says so and the run is unguarded.
      assert.equal(r.meta.memoryGuard, "heap-only");
    } else {
      const e = expectError(r, "sandbox_memory");
      assert.equal(e.error.details?.guard, "cgroup");
    }
  });
});

Deno.test("execute() ends a run that makes too many tool calls, even if it catches", async () => {
  await withRuntime(async (rt, counts) => {
    const r = expectError(
      await rt.execute({
        code:
          "for (let i = 0; i < 50; i++) { try { await math.add({ a: i, b: 0 }) } catch {} }\nreturn 'escaped'",
        limits: { maxToolCalls: 5 },
      }),
      "too_many_calls",
    );
    assert.equal(counts.add, 5);
    assert.equal(r.calls.length, 5);
  });
});

Deno.test("execute() ends a run with too many calls in flight", async () => {
  await withRuntime(async (rt) => {
    expectError(
      await rt.execute({
        code: "await Promise.all(Array.from({ length: 50 }, () => slow.wait({ ms: 50 })))",
        limits: { maxCallsInFlight: 10 },
      }),
      "too_many_calls_in_flight",
    );
  });
});

Deno.test("execute() runs 1,000 calls under Promise.all", async () => {
  await withRuntime(async (rt, counts) => {
    const r = await rt.execute({
      code:
        "const xs = await Promise.all(Array.from({ length: 1000 }, (_, i) => math.add({ a: i, b: 1 })));\nreturn xs.reduce((s, x) => s + x, 0)",
    });
    assert.equal(expectResult(r), 500_500);
    assert.equal(counts.add, 1000);
  });
});

Deno.test("execute() bounds a connector's concurrency and times out slow calls", async () => {
  await withRuntime(async (rt, counts) => {
    const r = await rt.execute({
      code: `
        const fast = await Promise.all([1, 2, 3, 4, 5, 6].map(() => slow.wait({ ms: 100 })));
        let timedOut = null;
        try { await slow.wait({ ms: 2000 }) } catch (e) { timedOut = e.code }
        return { fast: fast.length, timedOut };`,
    });
    assert.deepEqual(expectResult(r), { fast: 6, timedOut: "tool_timeout" });
    assert.equal(counts.slowPeak, 2);
  });
});

Deno.test("execute() refuses results that are too large or not data", async () => {
  await withRuntime(async (rt) => {
    const big = expectError(
      await rt.execute({ code: "return 'x'.repeat(5000)", limits: { maxResultBytes: 1000 } }),
      "result_too_large",
    );
    assert.equal(big.error.details?.limit, 1000);
    expectError(await rt.execute({ code: "return { f() {} }" }), "result_not_serializable");
    const cyclic = expectError(
      await rt.execute({ code: "const a = {}; a.a = a; return a" }),
      "result_not_serializable",
    );
    assert.match(cyclic.error.message, /cycle/);
  });
});

Deno.test("execute() fails a run whose frame or output is over its limit", async () => {
  await withRuntime(async (rt) => {
    expectError(
      await rt.execute({
        code: "console.log('y'.repeat(200_000)); return 1",
        limits: { maxFrameBytes: 65_536 },
      }),
      "protocol_error",
    );
    expectError(
      await rt.execute({
        code: "for (let i = 0; i < 10000; i++) console.log('z'.repeat(1000)); return 1",
        limits: { maxOutputBytes: 1_000_000 },
      }),
      "output_limit",
    );
  });
});

Deno.test("execute() reports a script that exits the process as sandbox_crashed", async () => {
  await withRuntime(async (rt) => {
    const r = expectError(await rt.execute({ code: "Deno.exit(7)" }), "sandbox_crashed");
    assert.equal(r.error.details?.exitCode, 7);
  });
});

Deno.test("execute() returns typed errors for bad requests", async () => {
  await withRuntime(async (rt) => {
    const over = expectError(
      await rt.execute({ code: "return 1", timeoutMs: 999_999 }),
      "limit_exceeded",
    );
    assert.equal(over.error.details?.maximum, 120_000);
    expectError(
      await rt.execute({ code: "return 1", limits: { bogus: 1 } as never }),
      "invalid_request",
    );
    expectError(await rt.execute({ code: "" }), "invalid_request");
    expectError(
      await rt.execute({ code: "return 1", policy: { net: ["http://evil/path"] } }),
      "invalid_request",
    );
    expectError(await rt.execute(null as never), "invalid_request");
  });
});

Deno.test("execute() isolates concurrent executions from each other", async () => {
  await withRuntime(async (rt) => {
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        rt.execute({
          code:
            "const before = globalThis.mark; globalThis.mark = input; await new Promise(r => setTimeout(r, 50)); return [before, globalThis.mark]",
          input: n,
        })
      ),
    );
    assert.deepEqual(results.map(expectResult), [[undefined, 1], [undefined, 2], [undefined, 3], [
      undefined,
      4,
    ]]);
  });
});

Deno.test("execute() uses the pool for default-policy runs and cold children otherwise", async () => {
  await withRuntime(async (rt) => {
    await rt.warm();
    assert.equal((await rt.execute({ code: "return 1" })).meta.pooled, true);
    assert.equal(
      (await rt.execute({ code: "return 1", limits: { heapMiB: 64 } })).meta.pooled,
      false,
    );
  });
});

Deno.test("close() ends running executions with runtime_closed and kills their children", async () => {
  const { connectors } = makeConnectors();
  const rt = await createRuntime({ connectors, pool: { size: 1 }, db: ":memory:" });
  const running = rt.execute({ code: "await new Promise(r => setTimeout(r, 20_000)); return 1" });
  await new Promise((r) => setTimeout(r, 300));
  await rt.close();
  expectError(await running, "runtime_closed");
  expectError(await rt.execute({ code: "return 1" }), "runtime_closed");
  await assertNoSandboxChildren();
});

Deno.test("capabilities() reports the memory guard, pool and limits", async () => {
  await withRuntime((rt) => {
    const caps = rt.capabilities();
    assert.ok(["cgroup-v2", "cgroup-v1", "heap-only"].includes(caps.memoryGuard.kind));
    assert.ok(caps.memoryGuard.reason.length > 0);
    assert.ok(["pdeathsig", "none"].includes(caps.orphanGuard.kind));
    assert.match(caps.orphanGuard.reason, /setpriv|Linux/);
    assert.equal(caps.pool.size, 1);
    assert.equal(caps.deno, Deno.version.deno);
    assert.equal(caps.limits.timeoutMs, 30_000);
    assert.deepEqual(rt.connectors().map((c) => c.name), ["math", "slow"]);
    return Promise.resolve();
  });
});
