/**
 * What the script is told and what the log says: a tool result the codec
 * cannot carry fails that call as a typed `invalid_output` with an `error`
 * entry, and a run reply claiming a code only the host decides is the
 * script's own `script_error`.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecuteResult, type Runtime } from "../../../mod.ts";
import { MAX_VALUE_DEPTH } from "../../../src/rpc/codec.ts";
import { concealPaths } from "../../../src/engine/execution/exit.ts";
import { assertNoSandboxChildren } from "../../_helpers/processes.ts";

function nested(depth: number): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < depth; i++) v = { v };
  return v;
}

function cycle(): unknown {
  const a: Record<string, unknown> = { name: "a" };
  a.self = a;
  return a;
}

/** Each tool returns a value the wire codec refuses. */
const UNENCODABLE: Record<string, () => unknown> = {
  float32: () => ({ samples: new Float32Array([1, 2, 3]) }),
  deep: () => nested(MAX_VALUE_DEPTH + 5),
  fn: () => ({ callback: () => 1 }),
  cycle,
};

const odd = defineConnector({
  name: "odd",
  description: "Returns values that cannot cross the wire",
  tools: {
    ...Object.fromEntries(
      Object.entries(UNENCODABLE).map(([name, make]) => [name, {
        description: `Returns ${name}`,
        input: z.object({}),
        execute: make as () => never,
      }]),
    ),
    gated: {
      description: "Needs approval",
      input: z.object({}),
      requiresApproval: true,
      execute: () => "sent",
    },
  },
});

async function withRuntime(fn: (rt: Runtime) => Promise<void>): Promise<void> {
  const rt = await createRuntime({ connectors: [odd], db: ":memory:", pool: { size: 0 } });
  try {
    await fn(rt);
  } finally {
    await rt.close();
  }
  await assertNoSandboxChildren();
}

function errorOf(r: ExecuteResult): { code: string; message: string; details?: unknown } {
  assert.ok(r.status === "error" || r.status === "rejected", `status ${r.status}`);
  return (r as { error: { code: string; message: string } }).error;
}

for (const session of [false, true]) {
  const how = session ? "in a session" : "in a durable run";
  Deno.test(`a tool result the codec cannot carry fails as invalid_output ${how}`, async () => {
    await withRuntime(async (rt) => {
      for (const tool of Object.keys(UNENCODABLE)) {
        const code = `
          try { await odd.${tool}({}); return "no error" }
          catch (e) { return { code: e.code, message: e.message } }`;
        const r = await rt.execute({ code, ...(session ? { session: true } : {}) });
        assert.equal(r.status, "completed", `${tool}: ${JSON.stringify(r).slice(0, 400)}`);
        const told = (r as { result: { code: string; message: string } }).result;
        assert.equal(told.code, "invalid_output", tool);
        assert.match(told.message, new RegExp(`^odd\\.${tool}: The result of odd\\.${tool}`));
        assert.match(told.message, /cannot be carried: Cannot encode value/);
        const stored = await rt.execution(r.executionId);
        assert.deepEqual(
          stored?.calls.map((c) => [c.tool, c.state, c.error?.code]),
          [[tool, "error", "invalid_output"]],
          tool,
        );
        if (session) await rt.closeSession(r.meta.sessionId!);
      }
    });
  });
}

Deno.test("an uncaught unencodable tool result ends the run with invalid_output", async () => {
  await withRuntime(async (rt) => {
    const r = await rt.execute({ code: "return await odd.float32({})" });
    assert.equal(errorOf(r).code, "invalid_output");
    assert.match(errorOf(r).message, /Float32Array is not supported; use Uint8Array/);
  });
});

const FORGE = (code: string) => `
  const frame = JSON.stringify({
    jsonrpc: "2.0", id: 1,
    error: { code: -32000, message: "forged", data: { code: "${code}" } },
  }) + "\\n";
  Deno.stdout.writeSync(new TextEncoder().encode(frame));
  await new Promise((r) => setTimeout(r, 200));
  return "real";`;

Deno.test("a forged run reply claiming a host-owned code is the script's own script_error", async () => {
  await withRuntime(async (rt) => {
    for (const claimed of ["rejected", "expired", "interrupted", "invalid_output", "internal"]) {
      for (const session of [false, true]) {
        const r = await rt.execute({ code: FORGE(claimed), ...(session ? { session: true } : {}) });
        assert.equal(r.status, "error", `${claimed}: ${r.status}`);
        const error = errorOf(r);
        assert.equal(error.code, "script_error", claimed);
        assert.deepEqual(error.details, { claimed });
        assert.equal((await rt.execution(r.executionId))?.status, "error", claimed);
        if (session) await rt.closeSession(r.meta.sessionId!);
      }
    }
  });
});

Deno.test("a rejection the host raised still ends the run rejected; a later forged one does not", async () => {
  await withRuntime(async (rt) => {
    const first = await rt.execute({ code: "await odd.gated({}); return 1" });
    assert.equal(first.status, "paused");
    const rejected = await rt.reject(first.executionId);
    assert.equal(rejected.status, "rejected");
    assert.equal(errorOf(rejected).code, "rejected");
    // The host told this run invalid_output, never rejected.
    const forged = await rt.execute({
      code: `try { await odd.fn({}) } catch { /* told invalid_output */ }\n${FORGE("rejected")}`,
    });
    assert.equal(errorOf(forged).code, "script_error");
    assert.equal((await rt.execution(forged.executionId))?.status, "error");
  });
});

Deno.test("concealPaths() names the guest's modules and the home directory neutrally", () => {
  const src = new URL("../../../src/", import.meta.url);
  const home = Deno.env.get("HOME") ?? "/home/someone";
  const hidden = Deno.env.get("HOME") ? "~" : home;
  const text = concealPaths(
    `at run (${src.href}sandbox/guest/entry.ts:1:2)\n${src.pathname}rpc/peer.ts ${home}/.cache ${home}x`,
  );
  assert.equal(
    text,
    `at run (cordon:guest/sandbox/guest/entry.ts:1:2)\ncordon:guest/rpc/peer.ts ${hidden}/.cache ${home}x`,
  );
});
