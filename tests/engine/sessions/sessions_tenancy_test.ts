import assert from "node:assert/strict";
import { createRuntime, type ExecuteResult } from "../../../mod.ts";
import {
  DEFAULT_SESSIONS,
  type LiveSession,
  SessionManager,
  type SessionSettings,
} from "../../../src/engine/sessions/manager.ts";
import { type Db, openDb } from "../../../src/store/client.ts";
import { migrate } from "../../../src/store/migrations.ts";
import { SessionStore } from "../../../src/store/sessions.ts";
import { CordonError } from "../../../src/errors.ts";

/** A session manager on a real in-memory store, with a clock the test moves by hand. */
async function manager(settings: Partial<SessionSettings>): Promise<{
  db: Db;
  sessions: SessionManager;
  open(namespace: string): Promise<LiveSession>;
}> {
  const db = await openDb(":memory:");
  await migrate(db);
  const sessions = new SessionManager(new SessionStore(db), "node_test", {
    ...DEFAULT_SESSIONS,
    ...settings,
  });
  let tick = 0;
  return {
    db,
    sessions,
    // Each opened session is released idle, one tick newer than the last: LRU order is
    // the order of opening, without reading the wall clock.
    async open(namespace) {
      const s = await sessions.open(namespace, "hash", "policy");
      s.busy = false;
      s.lastUsedAt = ++tick;
      return s;
    },
  };
}

function live(sessions: SessionManager, namespace: string): string[] {
  return sessions.list(namespace).map((s) => s.sessionId).sort();
}

Deno.test("SessionManager.open() past a namespace's cap evicts its own LRU, never another's", async () => {
  const { db, sessions, open } = await manager({ maxSessions: 10, maxSessionsPerNamespace: 2 });
  try {
    const g1 = await open("globex");
    const a1 = await open("acme");
    const a2 = await open("acme");
    const a3 = await open("acme");
    assert.deepEqual(live(sessions, "acme"), [a2.id, a3.id].sort(), "a1 was acme's LRU");
    assert.equal(sessions.peek(a1.id), undefined);
    assert.deepEqual(live(sessions, "globex"), [g1.id], "globex's older session stays");
    // Busy sessions are not evicted: past its cap with all busy, acme is refused.
    a2.busy = true;
    a3.busy = true;
    await assert.rejects(sessions.open("acme", "hash", "policy"), (err: unknown) => {
      assert.ok(err instanceof CordonError);
      assert.equal(err.code, "limit_exceeded");
      assert.match(err.message, /namespace "acme"/);
      return true;
    });
    assert.deepEqual(live(sessions, "globex"), [g1.id]);
    assert.equal(sessions.list().length, 3);
  } finally {
    await sessions.closeAll("test");
    db.close();
  }
});

Deno.test("SessionManager.open() on a full host takes from the namespace holding the most", async () => {
  const { db, sessions, open } = await manager({ maxSessions: 4, maxSessionsPerNamespace: 4 });
  try {
    // globex's session is the oldest on the host; acme then fills the rest.
    const g1 = await open("globex");
    const a = [await open("acme"), await open("acme"), await open("acme")];
    // A new tenant holds fewer than acme: acme's LRU goes, not globex's older one.
    const i1 = await open("initech");
    assert.equal(sessions.peek(a[0].id), undefined);
    assert.ok(sessions.peek(g1.id), "globex keeps its one session");
    assert.ok(sessions.peek(i1.id));
    // globex (1) opening again on a full host: acme still holds the most (2), so acme yields.
    const g2 = await open("globex");
    assert.equal(sessions.peek(a[1].id), undefined);
    assert.deepEqual(live(sessions, "globex"), [g1.id, g2.id].sort());
    // Now acme 1, globex 2, initech 1: initech takes from the LRU of the largest, globex.
    await open("initech");
    assert.equal(sessions.peek(g1.id), undefined, "globex's LRU goes, not acme's older one");
    assert.deepEqual(live(sessions, "acme"), [a[2].id]);
    // acme 1, globex 1, initech 2: acme opening takes from initech, the one holding more.
    await open("acme");
    assert.equal(sessions.list("initech").length, 1);
    assert.equal(sessions.list().length, 4);
  } finally {
    await sessions.closeAll("test");
    db.close();
  }
});

Deno.test("SessionManager.open() on a full host refuses rather than take from an equal", async () => {
  const { db, sessions, open } = await manager({ maxSessions: 2, maxSessionsPerNamespace: 2 });
  try {
    const a1 = await open("acme");
    const g1 = await open("globex");
    a1.busy = true;
    // globex holds 1 like acme; its own session is idle, so it replaces that one.
    const g2 = await open("globex");
    assert.equal(sessions.peek(g1.id), undefined);
    assert.ok(sessions.peek(a1.id));
    g2.busy = true;
    // Now acme (1) and globex (1) are both busy: nothing may be evicted.
    await assert.rejects(sessions.open("initech", "hash", "policy"), /busy or held/);
    a1.busy = false;
    // initech (0) may take acme's idle session: acme holds more than it.
    await open("initech");
    assert.equal(sessions.peek(a1.id), undefined);
    assert.ok(sessions.peek(g2.id));
  } finally {
    await sessions.closeAll("test");
    db.close();
  }
});

Deno.test("SessionManager.open() racing opens of one namespace cannot overshoot its cap", async () => {
  const { db, sessions } = await manager({ maxSessions: 10, maxSessionsPerNamespace: 2 });
  try {
    const opens = await Promise.allSettled(
      Array.from({ length: 5 }, () => sessions.open("acme", "hash", "policy")),
    );
    assert.equal(opens.filter((o) => o.status === "fulfilled").length, 2);
    for (const o of opens) {
      if (o.status === "rejected") assert.equal((o.reason as CordonError).code, "limit_exceeded");
    }
    assert.equal(sessions.list("acme").length, 2);
    const rows = await db.execute("SELECT COUNT(*) AS n FROM sessions WHERE status = 'active'");
    assert.equal(Number(rows.rows[0].n), 2);
  } finally {
    await sessions.closeAll("test");
    db.close();
  }
});

function sessionOf(r: ExecuteResult): string {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 400));
  return r.meta.sessionId!;
}

Deno.test("sessions: one namespace opening many cannot evict another namespace's session", async () => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    sessions: { maxSessions: 3, maxSessionsPerNamespace: 2 },
  });
  const kept = sessionOf(
    await rt.execute({ session: true, namespace: "globex", code: "let v = 'globex'; return v" }),
  );
  for (let i = 0; i < 3; i++) {
    sessionOf(
      await rt.execute({ session: true, namespace: "acme", code: `let v = ${i}; return v` }),
    );
  }
  const again = await rt.execute({ sessionId: kept, namespace: "globex", code: "return v" });
  assert.equal(again.status, "completed", Deno.inspect(again).slice(0, 400));
  assert.equal((again as { result: unknown }).result, "globex");
});
