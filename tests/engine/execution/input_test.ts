import assert from "node:assert/strict";
import { createRuntime, type ExecuteResult, type Runtime } from "../../../mod.ts";
import { MAX_VALUE_DEPTH } from "../../../src/rpc/codec.ts";

function open(maxSessions = 2): Promise<Runtime> {
  return createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    sessions: { maxSessions },
  });
}

function nested(levels: number): unknown {
  let deep: unknown = 1;
  for (let i = 0; i < levels; i++) deep = [deep];
  return deep;
}

function errorOf(r: ExecuteResult): { code: string; message: string } {
  assert.equal(r.status, "error", Deno.inspect(r).slice(0, 600));
  return (r as { error: { code: string; message: string } }).error;
}

const DEPTH_CODE =
  "let d = 0, x: any = input; while (Array.isArray(x)) { x = x[0]; d++; } return d";

Deno.test("execute() refuses input nested past the codec's bound as invalid_input, storing nothing", async () => {
  await using rt = await open();
  const deepest = MAX_VALUE_DEPTH - 1;
  const fits = await rt.execute({ code: DEPTH_CODE, input: nested(deepest) });
  assert.equal(fits.status, "completed");
  assert.equal((fits as { result: unknown }).result, deepest);
  for (const input of [nested(deepest + 1), nested(10_000)]) {
    const error = errorOf(await rt.execute({ code: DEPTH_CODE, input }));
    assert.equal(error.code, "invalid_input");
    assert.match(error.message, /nested deeper than/);
    assert.ok(error.message.length < 400, "the message quotes a short path");
  }
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.equal(errorOf(await rt.execute({ code: "return 1", input: cycle })).code, "invalid_input");
  assert.equal((await rt.executions()).items.length, 1, "only the run that fit was stored");
});

Deno.test("execute() with bad input takes no session slot, however often it is sent", async () => {
  await using rt = await open(2);
  // Each of these used to leave a session busy for ever: 16 and nobody could open one.
  for (let i = 0; i < 5; i++) {
    const error = errorOf(
      await rt.execute({ code: "return 1", input: nested(500), session: true }),
    );
    assert.equal(error.code, "invalid_input");
  }
  assert.deepEqual(rt.sessions(), []);
  const first = await rt.execute({ code: "return 1", session: true });
  const second = await rt.execute({ code: "return 2", session: true });
  assert.equal(first.status, "completed");
  assert.equal(second.status, "completed");
});

Deno.test("execute() gives the session slot back when a step after admission throws", async () => {
  await using rt = await open(1);
  // Encodes once for the admission check, then throws when the store encodes it: a failure
  // after the session slot was taken.
  let reads = 0;
  const input = {
    get value() {
      if (++reads > 1) throw new Error("the store cannot take this");
      return 1;
    },
  };
  await assert.rejects(rt.execute({ code: "return 1", input, session: true }), /cannot take/);
  assert.equal(rt.sessions().filter((s) => s.busy).length, 0, "no session is left busy");
  const next = await rt.execute({ code: "return 2", session: true });
  assert.equal(next.status, "completed", Deno.inspect(next).slice(0, 600));
});
