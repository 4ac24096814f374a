import assert from "node:assert/strict";
import { join } from "node:path";
import { createRuntime, type ExecuteResult, type Runtime, type SearchPage } from "../../../mod.ts";
import { INTENT_QUERIES, scriptedEmbedder, TEST_TOOL_COUNT, testConnectors } from "./concepts.ts";

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  return (r as { result: unknown }).result;
}

function paths(page: SearchPage, n = 3): string[] {
  return page.items.slice(0, n).map((h) => h.path);
}

function lastErrorCode(rt: Runtime): string | undefined {
  const status = rt.searchStatus();
  return status.semantic ? status.lastError?.code : undefined;
}

function lexicalRuntime(): Promise<Runtime> {
  return createRuntime({
    connectors: testConnectors(),
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
  });
}

Deno.test("runtime.search() and codemode.search() find intent queries the words miss, in the top 3", async () => {
  const embedder = scriptedEmbedder();
  const warnings: string[] = [];
  await using lexical = await lexicalRuntime();
  await using rt = await createRuntime({
    connectors: testConnectors(),
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    search: { embed: embedder.embed, onWarning: (m) => warnings.push(m) },
  });
  await rt.warm();
  const status = rt.searchStatus();
  assert.ok(status.semantic);
  assert.equal(status.documents, TEST_TOOL_COUNT);
  assert.equal(status.embedded, TEST_TOOL_COUNT);
  assert.equal(status.model, "concepts-v1");
  assert.equal(status.dimensions, 11);
  for (const [query, target] of INTENT_QUERIES) {
    // The premise: by words alone the tool is not in the top 3.
    assert.ok(!paths(await lexical.search(query)).includes(target), `lexical finds ${query}`);
    const page = await rt.search(query);
    assert.ok(paths(page).includes(target), `${query}: ${paths(page, 5)}`);
    assert.ok(page.items[0].score > 0 && page.items[0].score <= 1);
  }
  // The words still count: a query in the tool's own words keeps it first.
  assert.equal((await rt.search("refund a payment")).items[0].path, "billing.refund_payment");
  // A tool the words put first ("off" as in a discount) no longer hides the meant one.
  assert.equal(
    paths(await lexical.search("strike tomorrow's sync off"), 1)[0],
    "billing.create_coupon",
  );
  assert.ok(paths(await rt.search("strike tomorrow's sync off")).includes("calendar.delete_event"));

  // Inside a script, through codemode.search and a connector handle's searchTools.
  const inside = ok(
    await rt.execute({
      code: `const queries = ${JSON.stringify(INTENT_QUERIES.map(([q]) => q))};
const found = [];
for (const q of queries) found.push((await codemode.search(q, { limit: 3 })).items.map((h) => h.path));
const handle = await codemode.connector("calendar").searchTools("scrap tomorrow's standup");
return { found, handle: handle.items.map((t) => t.name) };`,
    }),
  ) as { found: string[][]; handle: string[] };
  INTENT_QUERIES.forEach(([query, target], i) =>
    assert.ok(inside.found[i].includes(target), `${query} in a script: ${inside.found[i]}`)
  );
  assert.equal(inside.handle[0], "delete_event");

  // Each query was embedded once: repeats and pages come from the cache.
  const calls = embedder.calls;
  await rt.search(INTENT_QUERIES[0][0]);
  await rt.search(`  ${INTENT_QUERIES[0][0]} `);
  assert.equal(embedder.calls, calls);
  assert.deepEqual(warnings, []);
});

Deno.test("runtime.search() fused pages are disjoint, cover the total, and refuse other queries' cursors", async () => {
  const embedder = scriptedEmbedder();
  await using lexical = await lexicalRuntime();
  await using rt = await createRuntime({
    connectors: testConnectors(),
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    search: { embed: embedder.embed },
  });
  await rt.warm();
  const query = "create a calendar event";
  const all = await rt.search(query, { limit: 100 });
  assert.ok(all.total >= TEST_TOOL_COUNT - 1, `fused total ${all.total}`);
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await rt.search(query, { limit: 3, cursor });
    assert.equal(page.total, all.total);
    seen.push(...page.items.map((h) => h.path));
    cursor = page.nextCursor;
  } while (cursor);
  assert.deepEqual(seen, all.items.map((h) => h.path));
  assert.equal(new Set(seen).size, seen.length);
  const first = await rt.search(query, { limit: 2 });
  await assert.rejects(rt.search("weather", { cursor: first.nextCursor }), {
    code: "invalid_request",
    message: /different query/,
  });
  await assert.rejects(rt.search(query, { cursor: "~garbage" }), { code: "invalid_request" });
  await assert.rejects(rt.search(query, { limit: 0 }), { code: "invalid_request" });
  await assert.rejects(rt.search("x".repeat(5_000)), { code: "invalid_request" });
  // A blank query lists by path, as without an embedder; a lexical cursor still pages.
  assert.deepEqual(
    (await rt.search("", { limit: 100 })).items.map((h) => h.path),
    (await lexical.search("", { limit: 100 })).items.map((h) => h.path),
  );
  const lexFirst = await lexical.search("calendar", { limit: 1 });
  assert.deepEqual(
    await rt.search("calendar", { limit: 1, cursor: lexFirst.nextCursor }),
    await lexical.search("calendar", { limit: 1, cursor: lexFirst.nextCursor }),
  );
});

Deno.test("search vectors are computed once, stored, and reused across a restart (file db)", async () => {
  const dir = await Deno.makeTempDir();
  const db = `file:${join(dir, "cordon.db")}`;
  try {
    const first = scriptedEmbedder();
    {
      await using rt = await createRuntime({
        connectors: testConnectors(),
        db,
        pool: { size: 0 },
        typecheck: "off",
        search: { embed: first.embed, batchSize: 4 },
      });
      await rt.warm();
      assert.equal(first.documentTexts().length, TEST_TOOL_COUNT);
      assert.equal(first.calls, Math.ceil(TEST_TOOL_COUNT / 4));
      const run = await rt.execute({ namespace: "acme", code: "return 1" });
      await rt.saveSnippet("standup_cleanup", {
        executionId: run.executionId,
        description: "Removes every standup meeting from the calendar",
      });
      await rt.warm();
      assert.equal(first.documentTexts().length, TEST_TOOL_COUNT + 1);
    }
    const second = scriptedEmbedder();
    {
      await using rt = await createRuntime({
        connectors: testConnectors(),
        db,
        pool: { size: 0 },
        typecheck: "off",
        search: { embed: second.embed },
      });
      await rt.warm();
      assert.deepEqual(second.documentTexts(), [], "nothing embedded again after a restart");
      const status = rt.searchStatus();
      assert.ok(status.semantic && status.embedded === TEST_TOOL_COUNT + 1);
      const page = await rt.search("scrap tomorrow's standup", { namespace: "acme" });
      assert.deepEqual(
        new Set(paths(page, 2)),
        new Set(["calendar.delete_event", "snippet:standup_cleanup"]),
      );
      assert.equal(second.calls, 1, "only the query was embedded");
    }
    // One tool's description changed: that tool, and only it, is embedded again.
    const third = scriptedEmbedder();
    {
      await using rt = await createRuntime({
        connectors: testConnectors("Remove an event from a calendar"),
        db,
        pool: { size: 0 },
        typecheck: "off",
        search: { embed: third.embed },
      });
      await rt.warm();
      assert.equal(third.documentTexts().length, 1);
      assert.match(third.documentTexts()[0], /Remove an event from a calendar/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a failing embedder leaves search to words: same results, counted, warned, and retried", async () => {
  const embedder = scriptedEmbedder();
  embedder.mode = "throw";
  const warnings: string[] = [];
  await using lexical = await lexicalRuntime();
  await using rt = await createRuntime({
    connectors: testConnectors(),
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    search: {
      embed: embedder.embed,
      queryTimeoutMs: 100,
      timeoutMs: 200,
      retryAfterMs: 0,
      onWarning: (m) => warnings.push(m),
    },
  });
  await rt.warm();
  for (const query of ["refund a payment", "scrap tomorrow's standup", "air"]) {
    assert.deepEqual(await rt.search(query), await lexical.search(query));
  }
  let status = rt.searchStatus();
  assert.ok(status.semantic);
  assert.equal(status.embedded, 0);
  assert.ok(status.failures >= 2 && status.lexicalFallbacks === 3, Deno.inspect(status));
  assert.equal(status.lastError?.code, "embedder_failed");
  assert.match(warnings[0], /embedder_failed: The embedder failed: the GPU caught fire/);

  // A hanging embedder is waited for queryTimeoutMs, then words answer.
  embedder.mode = "hang";
  const started = performance.now();
  assert.deepEqual(await rt.search("forecast"), await lexical.search("forecast"));
  assert.ok(performance.now() - started < 2_000);
  assert.equal(lastErrorCode(rt), "embedder_timeout");
  // One vector short is an unusable answer.
  embedder.mode = "short";
  assert.deepEqual(await rt.search("rain"), await lexical.search("rain"));
  assert.equal(lastErrorCode(rt), "embedder_malformed");

  // Working again: the next search embeds the waiting tools and ranks by meaning.
  embedder.mode = "ok";
  await rt.warm(); // the batch that hung times out
  await rt.search("warm up");
  await rt.warm();
  status = rt.searchStatus();
  assert.ok(status.semantic && status.embedded === TEST_TOOL_COUNT, Deno.inspect(status));
  assert.ok(paths(await rt.search("is the smog bad in Delhi")).includes("weather.air_quality"));
});

Deno.test("semantic search: another namespace's snippets never appear nor change scores", async () => {
  const embedder = scriptedEmbedder();
  await using rt = await createRuntime({
    connectors: testConnectors(),
    db: ":memory:",
    pool: { size: 0 },
    typecheck: "off",
    search: { embed: embedder.embed },
  });
  const save = async (namespace: string, name: string, description: string) => {
    const run = await rt.execute({ namespace, code: "return 1" });
    ok(run);
    await rt.saveSnippet(name, { executionId: run.executionId, description });
  };
  await save("globex", "weekly_forecast", "Posts the weather forecast to the team channel");
  await rt.warm();
  const queries = ["scrap tomorrow's standup", "weather for the team", "cancel the meeting"];
  const before = await Promise.all(queries.map((q) => rt.search(q, { namespace: "globex" })));
  for (let i = 0; i < 6; i++) {
    await save("acme", `drop_meeting_${i}`, `Delete the standup meeting ${i} from the calendar`);
  }
  await rt.warm();
  const after = await Promise.all(queries.map((q) => rt.search(q, { namespace: "globex" })));
  assert.deepEqual(after, before);
  assert.ok(after.every((p) => p.items.every((h) => !h.path.startsWith("snippet:drop_meeting"))));
  const acme = await rt.search("scrap tomorrow's standup", { namespace: "acme" });
  assert.ok(acme.items.slice(0, 7).some((h) => h.path.startsWith("snippet:drop_meeting")));
  assert.ok(!acme.items.some((h) => h.path === "snippet:weekly_forecast"));
  // A deleted snippet leaves the vector ranking too.
  assert.equal(await rt.deleteSnippet("weekly_forecast", { namespace: "globex" }), true);
  const gone = await rt.search("weather forecast channel", { namespace: "globex" });
  assert.ok(!gone.items.some((h) => h.path === "snippet:weekly_forecast"));
});
