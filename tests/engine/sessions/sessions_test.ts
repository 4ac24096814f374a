import assert from "node:assert/strict";
import { z } from "zod";
import {
  type Connector,
  createRuntime,
  defineConnector,
  type ExecuteResult,
  type Runtime,
  type RuntimeOptions,
} from "../../../mod.ts";

function tools(inputName: string) {
  return defineConnector({
    name: "kv",
    description: "A key-value store",
    tools: {
      get: {
        description: "Read a key",
        input: z.object({ [inputName]: z.string() }),
        readOnly: true,
        execute: (args: Record<string, string>) => `value of ${args[inputName]}`,
      },
      put: {
        description: "Write a key",
        input: z.object({ key: z.string(), value: z.string() }),
        execute: ({ key }) => `stored ${key}`,
      },
      gated: {
        description: "Needs approval",
        input: z.object({}),
        requiresApproval: true,
        execute: () => "approved",
      },
    },
  });
}

/** A connector whose tool list can change, as an MCP server's can. */
function changing(): { connector: Connector; change(): void } {
  let listener = () => {};
  const first = tools("key");
  const connector: Connector = {
    name: first.name,
    description: first.description,
    tools: first.tools,
    onToolsChanged: (l) => (listener = l, () => {}),
  };
  return {
    connector,
    change() {
      (connector as { tools: Connector["tools"] }).tools = tools("name").tools;
      listener();
    },
  };
}

async function open(extra: Partial<RuntimeOptions> = {}, connector?: Connector): Promise<Runtime> {
  return await createRuntime({
    connectors: [connector ?? tools("key")],
    db: ":memory:",
    pool: { size: 1 },
    typecheck: "off",
    ...extra,
  });
}

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  return (r as { result: unknown }).result;
}

function code(r: ExecuteResult): string {
  assert.notEqual(r.status, "completed", Deno.inspect(r).slice(0, 400));
  return (r as { error: { code: string } }).error.code;
}

Deno.test("a session keeps its heap across five executions", async () => {
  await using rt = await open();
  const first = await rt.execute({
    session: true,
    code: `const greeting = await kv.get({ key: "hello" });
      let count = 1;
      const { a, nested: [b] } = { a: 10, nested: [20] };
      function bump(n: number) { count += n; return count; }
      class Box { constructor(public v: number) {} }
      return greeting;`,
  });
  assert.equal(ok(first), "value of hello");
  assert.equal(first.meta.sessionStatus, "created");
  assert.match(first.meta.sessionId ?? "", /^ses_/);
  assert.match(first.meta.recoveryRef ?? "", /^rec_[A-Za-z0-9_-]{40,}$/);
  const sessionId = first.meta.sessionId!;
  const steps = [
    ["bump(a)", 11],
    ["bump(b); return count", 31],
    ["const boxes = [new Box(count)]; return boxes.length", 1],
    ["return boxes[0].v + a + b + greeting.length", 31 + 30 + 14],
  ] as const;
  for (const [line, expected] of steps) {
    const r = await rt.execute({
      sessionId,
      code: line.startsWith("bump(a)") ? `return ${line}` : line,
    });
    assert.equal(ok(r), expected, line);
    assert.equal(r.meta.sessionStatus, "reused");
    assert.equal(r.meta.recoveryRef, undefined, "the capability is given once");
  }
  // Another session, and a run without one, see none of it.
  const other = await rt.execute({ session: true, code: "return typeof count" });
  assert.equal(ok(other), "undefined");
  assert.equal(ok(await rt.execute({ code: "return typeof greeting" })), "undefined");
  assert.deepEqual(
    rt.sessions().map((s) => s.sessionId).sort(),
    [sessionId, other.meta.sessionId].sort(),
  );
  assert.equal(await rt.closeSession(sessionId), true);
  assert.equal(code(await rt.execute({ sessionId, code: "return count" })), "session_not_found");
});

Deno.test("busy, unknown, other-namespace and both-options requests fail before any code runs", async () => {
  await using rt = await open();
  const first = await rt.execute({ session: true, code: "let n = 0; return n" });
  const sessionId = first.meta.sessionId!;
  const slow = rt.execute({
    sessionId,
    code: "await new Promise((r) => setTimeout(r, 400)); n++; return n",
  });
  await new Promise((r) => setTimeout(r, 100));
  const busy = await rt.execute({ sessionId, code: "n = 100; return n" });
  assert.equal(code(busy), "session_busy");
  assert.equal(ok(await slow), 1, "the busy request did not run");
  assert.equal(
    code(await rt.execute({ sessionId: "ses_unknown", code: "return 1" })),
    "session_not_found",
  );
  assert.equal(
    code(await rt.execute({ sessionId, namespace: "other", code: "return n" })),
    "session_not_found",
  );
  assert.equal(
    code(await rt.execute({ session: true, sessionId, code: "return 1" })),
    "invalid_request",
  );
  const listed = await rt.executions();
  assert.equal(listed.items.length, 2, "refused requests store no execution");
  assert.equal(ok(await rt.execute({ sessionId, code: "return n" })), 1);
});

Deno.test("an idle session expires after idleTtlMs", async () => {
  await using rt = await open({ sessions: { idleTtlMs: 150, maxSessions: 2 } });
  const a = (await rt.execute({ session: true, code: "let v = 'a'; return v" })).meta.sessionId!;
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(code(await rt.execute({ sessionId: a, code: "return v" })), "session_not_found");
});

Deno.test("past maxSessions the least recently used idle session is evicted", async () => {
  // A long idle TTL: on a busy machine spawning c and d must not expire b by time instead.
  await using rt = await open({ sessions: { idleTtlMs: 60_000, maxSessions: 2 } });
  const b = (await rt.execute({ session: true, code: "let v = 'b'; return v" })).meta.sessionId!;
  const c = (await rt.execute({ session: true, code: "let v = 'c'; return v" })).meta.sessionId!;
  assert.equal(
    ok(await rt.execute({ sessionId: b, code: "return v" })),
    "b",
    "b is now the newest",
  );
  const d = (await rt.execute({ session: true, code: "let v = 'd'; return v" })).meta.sessionId!;
  assert.equal(code(await rt.execute({ sessionId: c, code: "return v" })), "session_not_found");
  assert.equal(ok(await rt.execute({ sessionId: b, code: "return v" })), "b");
  assert.equal(ok(await rt.execute({ sessionId: d, code: "return v" })), "d");
});

Deno.test("a timeout or a crash ends the session; a script error does not", async () => {
  await using rt = await open();
  const s = (await rt.execute({ session: true, code: "let kept = 42; return kept" })).meta
    .sessionId!;
  assert.equal(
    code(await rt.execute({ sessionId: s, code: "throw new Error('oops')" })),
    "script_error",
  );
  assert.equal(ok(await rt.execute({ sessionId: s, code: "return kept" })), 42);
  assert.equal(
    code(await rt.execute({ sessionId: s, code: "while (true) {}", timeoutMs: 300 })),
    "sandbox_timeout",
  );
  assert.equal(code(await rt.execute({ sessionId: s, code: "return kept" })), "session_not_found");

  const t = (await rt.execute({ session: true, code: "let kept = 1; return kept" })).meta
    .sessionId!;
  const heap = await rt.execute({ sessionId: t, code: "return kept", limits: { heapMiB: 64 } });
  assert.equal(code(heap), "invalid_request");
  assert.equal(ok(await rt.execute({ sessionId: t, code: "return kept" })), 1);
  const crash = await rt.execute({ sessionId: t, code: "Deno.exit(7)" });
  assert.equal(code(crash), "sandbox_crashed");
  // A different heap size is a different sandbox: refused, and the session stays.
  const other = await rt.execute({ sessionId: s, code: "return 1", limits: { heapMiB: 64 } });
  assert.equal(code(other), "session_not_found", "s ended with its timeout");
  assert.equal(code(await rt.execute({ sessionId: t, code: "return kept" })), "session_not_found");
});

Deno.test("a session made against other declarations is refused once they change", async () => {
  const { connector, change } = changing();
  await using rt = await open({}, connector);
  const s = (await rt.execute({ session: true, code: "let x = 1; return x" })).meta.sessionId!;
  assert.equal(ok(await rt.execute({ sessionId: s, code: "return x" })), 1);
  change();
  const r = await rt.execute({ sessionId: s, code: "return x" });
  assert.equal(code(r), "session_not_found");
  assert.match((r as { error: { message: string } }).error.message, /declarations/);
});

Deno.test("a paused execution in a session continues live and keeps the session", async () => {
  await using rt = await open();
  const s = (await rt.execute({ session: true, code: "let log: string[] = []; return 0" })).meta
    .sessionId!;
  const paused = await rt.execute({
    sessionId: s,
    code: "log.push(await kv.gated({})); return log",
  });
  assert.equal(paused.status, "paused");
  assert.equal(code(await rt.execute({ sessionId: s, code: "return 1" })), "session_busy");
  assert.deepEqual(ok(await rt.approve(paused.executionId)), ["approved"]);
  assert.deepEqual(ok(await rt.execute({ sessionId: s, code: "return log" })), ["approved"]);
});

Deno.test("recovery history: what each execution did, classified from its calls", async () => {
  await using rt = await open({ sessions: { maxJournalCodeChars: 200 } });
  const first = await rt.execute({
    session: true,
    code: "const cfg = { region: 'eu' }; function f() { return 1 } return cfg",
  });
  const s = first.meta.sessionId!;
  const recoveryRef = first.meta.recoveryRef!;
  await rt.execute({ sessionId: s, code: "const v = await kv.get({ key: 'a' }); return v" });
  await rt.execute({ sessionId: s, code: "await kv.put({ key: 'a', value: 'b' }); return 1" });
  await rt.execute({ sessionId: s, code: `return cfg.missing.deeper // ${"x".repeat(300)}` });
  await rt.execute({ sessionId: s, code: "while (true) {}", timeoutMs: 250 });
  const all = await rt.readRecovery({ recoveryRef });
  assert.equal(all.status, "ended");
  assert.equal(all.endReason, "timeout");
  assert.deepEqual(all.entries.map((e) => e.recoveryClassification), [
    "setup_like",
    "setup_like",
    "side_effecting",
    "setup_like",
    "unknown",
  ]);
  assert.deepEqual(all.entries[0].declared, ["cfg", "f"]);
  assert.equal(all.entries[2].toolCalls, 1);
  assert.deepEqual(all.entries.map((e) => e.outcome.ok), [true, true, true, false, false]);
  const failed = all.entries[3].outcome;
  assert.equal(failed.ok ? "" : failed.code, "script_error");
  assert.deepEqual(all.entries[3].diagnostics.map((d) => [d.code, d.severity, d.line]), [
    ["script_error", "error", 1],
  ]);
  assert.equal(all.entries[4].outcome.ok ? "" : all.entries[4].outcome.code, "sandbox_timeout");
  assert.equal(all.entries[3].codeTruncated, true);
  assert.equal(all.entries[3].code.length, 200);
  const page = await rt.readRecovery({ recoveryRef, limit: 2 });
  assert.equal(page.entries.length, 2);
  const next = await rt.readRecovery({ recoveryRef, limit: 2, cursor: page.nextCursor });
  assert.deepEqual(next.entries.map((e) => e.seq), [3, 4]);
  await assert.rejects(rt.readRecovery({ recoveryRef: "rec_guess" }), { code: "not_found" });
});

Deno.test("a paused session execution whose sandbox was released cannot be replayed", async () => {
  await using rt = await open({ durability: { holdMs: 100 } });
  const s = (await rt.execute({ session: true, code: "let seen = 1; return seen" })).meta
    .sessionId!;
  const paused = await rt.execute({ sessionId: s, code: "await kv.gated({}); return seen" });
  assert.equal(paused.status, "paused");
  await new Promise((r) => setTimeout(r, 400));
  const after = await rt.approve(paused.executionId);
  assert.equal(code(after), "session_not_found");
  assert.equal(code(await rt.execute({ sessionId: s, code: "return seen" })), "session_not_found");
  assert.equal((await rt.execution(paused.executionId))?.status, "error");
});

Deno.test("the recovery journal keeps code and messages redacted", async () => {
  await using rt = await open();
  const first = await rt.execute({
    session: true,
    code: `const mail = "ann@example.com"; const key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
      throw new Error("failed for " + mail);`,
  });
  assert.equal(first.status, "error");
  const page = await rt.readRecovery({ recoveryRef: first.meta.recoveryRef! });
  const entry = page.entries[0];
  assert.doesNotMatch(entry.code, /ann@example\.com|ghp_abcdef/);
  assert.match(entry.code, /\[redacted:email\]/);
  assert.equal(entry.outcome.ok, false);
  assert.doesNotMatch(entry.outcome.ok ? "" : entry.outcome.message, /ann@example\.com/);
  assert.doesNotMatch(entry.summary ?? "", /ann@example\.com/);
  assert.match(entry.summary ?? "", /failed with script_error: .*\[redacted:email\]/);
});

Deno.test("recovery entries carry an ISO timestamp, a summary and whether logs are stored", async () => {
  await using rt = await open();
  const before = Date.now();
  const first = await rt.execute({
    session: true,
    code: "const a = 1; let b = 2; console.log('set up'); return a + b",
  });
  const s = first.meta.sessionId!;
  await rt.execute({ sessionId: s, code: "await kv.put({ key: 'a', value: 'b' }); return 1" });
  const [setup, write] = (await rt.readRecovery({ recoveryRef: first.meta.recoveryRef! })).entries;
  const at = Date.parse(setup.timestamp);
  assert.equal(new Date(at).toISOString(), setup.timestamp);
  assert.ok(at >= before && at <= Date.now(), setup.timestamp);
  assert.equal(setup.summary, "declares a, b; 0 tool calls; completed");
  assert.equal(write.summary, "declares nothing; 1 tool call; completed");
  assert.deepEqual([setup.logsStored, write.logsStored], [true, false]);
  assert.equal(setup.declarationHash, first.meta.declarationHash);
  assert.deepEqual(setup.outcome, { ok: true });
  assert.deepEqual(setup.diagnostics, []);
});

Deno.test("recovery classes a run that could fetch as unknown: its requests are not seen", async () => {
  await using rt = await open();
  const first = await rt.execute({
    session: true,
    policy: { net: ["example.com"] },
    code: "const a = 1; return a",
  });
  const page = await rt.readRecovery({ recoveryRef: first.meta.recoveryRef! });
  assert.deepEqual(page.entries.map((e) => e.recoveryClassification), ["unknown"]);
});
