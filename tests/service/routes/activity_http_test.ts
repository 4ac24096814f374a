import assert from "node:assert/strict";
import { openService, readEvents, type SseEvent } from "../_service.ts";

const as = (token: string) => ({ authorization: `Bearer ${token}` });
const GATED = `console.log("asking"); return await mail.send({ to: "ops" })`;

/** The changes of one execution, in order. */
function changesOf(events: SseEvent[], id: string): string[] {
  return events.filter((e) => e.data?.executionId === id).map((e) => e.event);
}

Deno.test("GET /v1/events: each run's start, pause, resumption and end, errors and deletions, in order", async () => {
  await using t = await openService();
  const reading = readEvents(
    `${t.service.url}/v1/events`,
    (e) => e.event === "deleted",
  );
  // Give the stream a moment to open before anything happens.
  await new Promise((r) => setTimeout(r, 200));
  const a = (await t.call("POST", "/v1/executions", { code: GATED })).json;
  assert.equal(a.status, "paused");
  assert.equal(
    (await t.call("POST", `/v1/executions/${a.executionId}/approve`)).json.status,
    "completed",
  );
  const b = (await t.call("POST", "/v1/executions", { code: GATED })).json;
  const rejected = await t.call("POST", `/v1/executions/${b.executionId}/reject`, {
    reason: "not today",
  });
  assert.equal(rejected.json.status, "rejected");
  const c = (await t.call("POST", "/v1/executions", { code: `throw new Error("boom")` })).json;
  assert.equal(c.status, "error");
  assert.equal((await t.call("DELETE", `/v1/executions/${a.executionId}`)).json.deleted, true);
  const ids = [a.executionId, b.executionId, c.executionId];
  const { events, status } = await reading;
  assert.equal(status, 200);

  assert.equal(events[0].event, "ready", "the stream opens with ready");
  assert.equal(events[0].id, undefined);
  assert.deepEqual(changesOf(events, ids[0]), [
    "started",
    "paused",
    "resumed",
    "completed",
    "deleted",
  ]);
  // A rejection is a decision too: the run resumes to throw it in the script, which does not
  // catch it, so the run ends rejected.
  assert.deepEqual(changesOf(events, ids[1]), ["started", "paused", "resumed", "rejected"]);
  assert.deepEqual(changesOf(events, ids[2]), ["started", "error"]);
  const numbered = events.slice(1).map((e) => Number(e.id));
  assert.deepEqual(numbered, numbered.map((_, i) => numbered[0] + i), "ids count up by one");

  const paused = events.find((e) => e.event === "paused")!;
  assert.equal(paused.data.status, "paused");
  assert.equal(paused.data.pending, 1);
  assert.equal(paused.data.namespace, "default");
  assert.equal(typeof paused.data.at, "number");
  const error = events.find((e) => e.event === "error")!;
  assert.equal(error.data.error.code, "script_error");
  assert.match(error.data.error.message, /boom/);
  const gone = events.at(-1)!;
  assert.equal(gone.data.status, undefined, "a deleted execution has no status");

  // Reconnecting with Last-Event-ID sends exactly what came after it.
  const cut = events[3];
  const resumed = await readEvents(
    `${t.service.url}/v1/events`,
    (e) => e.event === "deleted",
    { "last-event-id": cut.id! },
  );
  assert.deepEqual(
    resumed.events.filter((e) => e.id).map((e) => [e.id, e.event]),
    events.slice(4).map((e) => [e.id, e.event]),
  );
  // An id this service never gave (it restarted since) says reset: read the list again.
  const stale = await readEvents(
    `${t.service.url}/v1/events?lastEventId=99999`,
    (e) => e.event === "ready",
  );
  assert.deepEqual(stale.events.map((e) => e.event), ["reset", "ready"]);
});

Deno.test("GET /v1/events: a key sees its namespace's changes; an admin sees all or picks one", async () => {
  await using t = await openService({ auth: "keys" });
  const keys = t.service.keys;
  const acme = await keys.create({ name: "acme", scopes: ["execute"], namespace: "acme" });
  const globex = await keys.create({ name: "globex", scopes: ["execute"], namespace: "globex" });
  const admin = await keys.create({ name: "root", scopes: ["admin"] });
  const url = `${t.service.url}/v1/events`;

  assert.equal((await readEvents(url, () => true)).status, 401);
  const other = await readEvents(`${url}?namespace=globex`, () => true, as(acme.token));
  assert.equal(other.status, 403);
  assert.equal((await readEvents(`${url}?nope=1`, () => true, as(admin.token))).status, 400);

  const ends = (n: number) => (_e: SseEvent, all: SseEvent[]) =>
    all.filter((x) => x.event === "completed").length === n;
  const asAcme = readEvents(url, ends(1), as(acme.token));
  const asAdmin = readEvents(url, ends(2), as(admin.token));
  const onlyGlobex = readEvents(`${url}?namespace=globex`, ends(1), as(admin.token));
  await new Promise((r) => setTimeout(r, 200));
  const g = await t.call("POST", "/v1/executions", { code: "return 1" }, as(globex.token));
  const a = await t.call("POST", "/v1/executions", { code: "return 2" }, as(acme.token));
  const ns = (r: { events: SseEvent[] }) =>
    r.events.filter((e) => e.id).map((e) => `${e.data.namespace}:${e.event}`);
  assert.deepEqual(ns(await asAcme), ["acme:started", "acme:completed"]);
  assert.deepEqual(ns(await onlyGlobex), ["globex:started", "globex:completed"]);
  assert.deepEqual(ns(await asAdmin), [
    "globex:started",
    "globex:completed",
    "acme:started",
    "acme:completed",
  ]);
  assert.ok(g.json.executionId !== a.json.executionId);
});

Deno.test("GET /v1/events: a run paused before a restart is followed after it, with its namespace", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-activity-" });
  try {
    let id: string;
    {
      await using t = await openService({}, dir);
      const p = await t.call("POST", "/v1/executions", { code: GATED, namespace: "ops" });
      assert.equal(p.json.status, "paused");
      id = p.json.executionId;
    }
    await using t = await openService({}, dir);
    const reading = readEvents(`${t.service.url}/v1/events`, (e) => e.event === "completed");
    await new Promise((r) => setTimeout(r, 200));
    const done = await t.call("POST", `/v1/executions/${id}/approve`);
    assert.equal(done.json.status, "completed");
    const { events } = await reading;
    assert.deepEqual(events.filter((e) => e.id).map((e) => [e.event, e.data.namespace]), [
      ["resumed", "ops"],
      ["completed", "ops"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GET /v1/events: an id from before a restart says reset, even once the new process has as many changes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-activity-ids-" });
  try {
    let last: string;
    {
      await using t = await openService({}, dir);
      const reading = readEvents(`${t.service.url}/v1/events`, (e) => e.event === "completed");
      await new Promise((r) => setTimeout(r, 200));
      await t.call("POST", "/v1/executions", { code: "return 1" });
      last = (await reading).events.at(-1)!.id!;
    }
    await using t = await openService({}, dir);
    // More changes than the last process had made before that id.
    for (let i = 0; i < 3; i++) await t.call("POST", "/v1/executions", { code: "return 2" });
    const back = await readEvents(
      `${t.service.url}/v1/events`,
      (e) => e.event === "ready",
      { "last-event-id": last },
    );
    assert.deepEqual(back.events.map((e) => e.event), ["reset", "ready"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("event streams end soon after their key is revoked", async () => {
  await using t = await openService({ auth: "keys" });
  const admin = await t.service.keys.create({ name: "root", scopes: ["admin"] });
  const watcher = await t.service.keys.create({ name: "watcher", scopes: ["execute"] });
  const paused = await t.call("POST", "/v1/executions", { code: GATED }, as(watcher.token));
  assert.equal(paused.json.status, "paused");
  const never = () => false;
  const feed = readEvents(`${t.service.url}/v1/events`, never, as(watcher.token));
  const run = readEvents(
    `${t.service.url}/v1/executions/${paused.json.executionId}/events`,
    never,
    as(watcher.token),
  );
  // An admin's stream, open all along, lives through the same checks.
  const kept = readEvents(
    `${t.service.url}/v1/events`,
    (e) => e.event === "completed",
    as(admin.token),
  );
  await new Promise((r) => setTimeout(r, 200));
  const revoked = await t.call("DELETE", `/v1/keys/${watcher.key.id}`, undefined, as(admin.token));
  assert.equal(revoked.status, 200);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"still open">((r) => (timer = setTimeout(() => r("still open"), 8_000)));
  try {
    const [f, r] = await Promise.all([Promise.race([feed, late]), Promise.race([run, late])]);
    assert.notEqual(f, "still open", "the activity stream outlived its key");
    assert.notEqual(r, "still open", "the execution's stream outlived its key");
  } finally {
    clearTimeout(timer);
  }
  await t.call("POST", "/v1/executions", { code: "return 1" }, as(admin.token));
  const seen = await kept;
  assert.equal(seen.status, 200);
  assert.equal(seen.events.at(-1)?.event, "completed");
});
