import assert from "node:assert/strict";
import { createRuntime, type ExecuteResult, type Runtime } from "../../../mod.ts";
import { CODEMODE_DECLARATION } from "../../../src/connectors/typegen/codemode.ts";
import { declareCaplets } from "../../../src/connectors/typegen/caplets.ts";
import { formOf, TypeChecker } from "../../../src/engine/typecheck/check.ts";

function open(): Promise<Runtime> {
  return createRuntime({ db: ":memory:", pool: { size: 1 }, typecheck: "off" });
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  return r.status === "completed" ? r.result : undefined;
}

/** Runs code that logs three lines and returns the execution's logRef. */
async function logThree(rt: Runtime, namespace?: string): Promise<string> {
  const r = await rt.execute({
    code: "console.log('one'); console.warn('two'); console.error('three'); return 1",
    ...(namespace ? { namespace } : {}),
  });
  ok(r);
  const details = await rt.execution(r.executionId);
  assert.ok(details?.logRef);
  return details.logRef;
}

/** Script code that calls `call` and returns the error's code and message instead of throwing. */
function catching(call: string): string {
  return `try { await ${call}; return { code: "none" }; } ` +
    `catch (e) { return { code: e.code, message: e.message }; }`;
}

Deno.test("codemode.readLogs() reads another execution's lines and pages with cursor", async () => {
  await using rt = await open();
  const logRef = await logThree(rt);
  const r = await rt.execute({
    input: { logRef },
    code: `const first = await codemode.readLogs({ logRef: input.logRef, limit: 2 });
const rest = await codemode.readLogs({ logRef: input.logRef, limit: 2, cursor: first.nextCursor });
return {
  first: first.entries.map((l) => l.level + ":" + l.message),
  firstCursor: typeof first.nextCursor,
  rest: rest.entries.map((l) => l.level + ":" + l.message),
  restCursor: rest.nextCursor ?? null,
  keys: Object.keys(rest).sort(),
  entryKeys: Object.keys(rest.entries[0]).sort(),
  times: [...first.entries, ...rest.entries].map((l) => l.timestamp),
};`,
  });
  const got = ok(r) as { times: string[] };
  const { times, ...rest } = got;
  assert.deepEqual(rest, {
    first: ["log:one", "warn:two"],
    firstCursor: "string",
    rest: ["error:three"],
    restCursor: null,
    keys: ["entries"],
    entryKeys: ["level", "message", "timestamp"],
  });
  // Each line's time is its execution's start plus when in the run it was written.
  const page = await rt.readLogs({ logRef });
  const source = await rt.execution(page.executionId);
  assert.deepEqual(
    times,
    page.items.map((l) => new Date(page.startedAt + l.atMs).toISOString()),
  );
  assert.ok(times.every((t) => Date.parse(t) >= source!.createdAt), times.join());
  const details = await rt.execution(r.executionId);
  assert.equal(details?.calls.length, 0, "platform reads are not journaled as calls");
});

Deno.test("codemode.readLogs() answers not_found for an unknown ref and another namespace's execution", async () => {
  await using rt = await open();
  const logRef = await logThree(rt, "a");
  const read = catching("codemode.readLogs({ logRef: input.logRef })");
  const guess = ok(
    await rt.execute({ namespace: "a", input: { logRef: "log_guess" }, code: read }),
  );
  const foreign = ok(await rt.execute({ namespace: "b", input: { logRef }, code: read }));
  const own = ok(await rt.execute({ namespace: "a", input: { logRef }, code: read }));
  assert.equal((guess as { code: string }).code, "not_found");
  assert.deepEqual(foreign, guess, "another namespace's ref reads exactly like an unknown one");
  assert.deepEqual(own, { code: "none" });
});

Deno.test("codemode.readRecovery() reads the history of the script's own session", async () => {
  await using rt = await open();
  const first = await rt.execute({ session: true, namespace: "a", code: "let n = 1; return n" });
  ok(first);
  const sessionId = first.meta.sessionId!;
  const recoveryRef = first.meta.recoveryRef!;
  assert.ok(recoveryRef);
  ok(await rt.execute({ sessionId, namespace: "a", code: "n += 1; return n" }));
  const r = await rt.execute({
    sessionId,
    namespace: "a",
    input: { recoveryRef },
    code: `const page = await codemode.readRecovery({ recoveryRef: input.recoveryRef, limit: 1 });
const next = await codemode.readRecovery({ recoveryRef: input.recoveryRef, cursor: page.nextCursor });
return {
  sessionId: page.sessionId,
  status: page.status,
  entries: [...page.entries, ...next.entries].map((e) =>
    [e.seq, e.code, e.outcome.ok, e.recoveryClassification, e.summary]
  ),
  more: next.nextCursor ?? null,
};`,
  });
  assert.deepEqual(ok(r), {
    sessionId,
    status: "active",
    entries: [
      [1, "let n = 1; return n", true, "setup_like", "declares n; 0 tool calls; completed"],
      [2, "n += 1; return n", true, "setup_like", "declares nothing; 0 tool calls; completed"],
    ],
    more: null,
  });
  const read = catching("codemode.readRecovery({ recoveryRef: input.recoveryRef })");
  const foreign = ok(await rt.execute({ namespace: "b", input: { recoveryRef }, code: read }));
  const guess = ok(
    await rt.execute({ namespace: "a", input: { recoveryRef: "rec_x" }, code: read }),
  );
  assert.equal((guess as { code: string }).code, "not_found");
  assert.deepEqual(foreign, guess, "another namespace's ref reads exactly like an unknown one");
});

Deno.test("codemode.readLogs() and readRecovery() refuse bad arguments with invalid_request", async () => {
  await using rt = await open();
  const logRef = await logThree(rt);
  const calls = [
    "codemode.readLogs({})",
    "codemode.readLogs('log_x')",
    "codemode.readLogs({ logRef: input.logRef, limit: 0 })",
    "codemode.readLogs({ logRef: input.logRef, limit: '2' })",
    "codemode.readLogs({ logRef: input.logRef, cursor: 5 })",
    "codemode.readLogs({ logRef: input.logRef, cursor: 'later' })",
    "codemode.readRecovery(undefined)",
    "codemode.readRecovery({ recoveryRef: 42 })",
    "codemode.readRecovery({ recoveryRef: 'rec_x', limit: 501 })",
  ];
  for (const call of calls) {
    const got = ok(await rt.execute({ input: { logRef }, code: catching(call) })) as {
      code: string;
      message: string;
    };
    assert.equal(got.code, "invalid_request", `${call}: ${got.message}`);
    assert.match(got.message, /^codemode\.read(Logs|Recovery): /, call);
  }
});

Deno.test("CODEMODE_DECLARATION types readLogs() and readRecovery() for the checker", () => {
  const checker = new TypeChecker();
  const check = (code: string) =>
    checker.check({
      code,
      form: formOf(code),
      declarations: CODEMODE_DECLARATION + declareCaplets([]),
      declarationHash: "codemode",
    });
  const good = check(`const logs = await codemode.readLogs({ logRef: "log_x", limit: 10 });
const levels: ("log" | "info" | "warn" | "error" | "debug")[] = logs.entries.map((l) => l.level);
const h = await caplets.debug.readRecovery({ recoveryRef: "rec_x", cursor: logs.nextCursor });
const safe = h.entries.filter((e) => e.recoveryClassification === "setup_like").map((e) => e.code);
return { levels, safe, at: logs.entries[0]?.timestamp, ok: h.entries[0]?.outcome.ok };`);
  assert.deepEqual(good.declarationErrors ?? [], []);
  assert.deepEqual(good.diagnostics, []);
  const bad = check(`await codemode.readLogs({ ref: "log_x" });
const h = await codemode.readRecovery({ recoveryRef: "rec_x" });
return h.entries[0].recoveryClassification === "harmless";`);
  assert.deepEqual(bad.diagnostics.map((d) => d.line), [1, 3]);
});
