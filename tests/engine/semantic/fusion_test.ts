import assert from "node:assert/strict";
import { createRuntime } from "../../../mod.ts";
import { reciprocalRankFusion } from "../../../src/engine/semantic/fusion.ts";
import { embedOnce, unitVector } from "../../../src/engine/semantic/embed_call.ts";
import { semanticSettings } from "../../../src/engine/semantic/options.ts";

Deno.test("reciprocalRankFusion() sums weight / (k + rank), ties by path", () => {
  const fused = reciprocalRankFusion([
    { paths: ["a", "b", "c"], weight: 1 },
    { paths: ["c", "d", "a"], weight: 1 },
  ], 60);
  const score = Object.fromEntries(fused.map((f) => [f.path, f.score]));
  assert.equal(score.a, 1 / 61 + 1 / 63);
  assert.equal(score.c, 1 / 63 + 1 / 61);
  assert.equal(score.b, 1 / 62);
  assert.equal(score.d, 1 / 62);
  assert.deepEqual(fused.map((f) => f.path), ["a", "c", "b", "d"]);
  // A heavier vector side lifts what only it found; weight 0 makes a ranking count for nothing.
  const heavy = reciprocalRankFusion([
    { paths: ["x", "y"], weight: 1 },
    { paths: ["z"], weight: 3 },
  ], 60);
  assert.equal(heavy[0].path, "z");
  const mute = reciprocalRankFusion([{ paths: ["p"], weight: 1 }, { paths: ["q"], weight: 0 }], 60);
  assert.deepEqual(mute.map((f) => [f.path, f.score > 0]), [["p", true], ["q", false]]);
  // A smaller k makes first place matter more.
  const sharp = reciprocalRankFusion([
    { paths: ["a", "b"], weight: 1 },
    { paths: ["b", "c", "d", "a"], weight: 1 },
  ], 1);
  assert.equal(sharp[0].path, "b");
  // A path repeated in one ranking counts once, at its first rank.
  assert.deepEqual(reciprocalRankFusion([{ paths: ["a", "a"], weight: 1 }], 0), [{
    path: "a",
    score: 1,
  }]);
});

Deno.test("embedOnce() checks answers and bounds the wait, with typed errors", async () => {
  const call = (
    embed: (texts: string[]) => Promise<unknown>,
    o: Partial<Parameters<typeof embedOnce>[0]> = {},
  ) =>
    embedOnce({
      embed: embed as Parameters<typeof embedOnce>[0]["embed"],
      texts: ["a", "b"],
      timeoutMs: 100,
      ...o,
    });
  const [a, b] = await call((texts) => Promise.resolve(texts.map((_, i) => [3, 4 * i])));
  assert.deepEqual([...a], [1, 0]);
  assert.ok(Math.abs(b[0] - 0.6) < 1e-6 && Math.abs(b[1] - 0.8) < 1e-6);
  assert.deepEqual([...unitVector([0, 0])], [0, 0], "a zero vector stays zero");
  const f32 = await call((texts) => Promise.resolve(texts.map(() => new Float32Array([0, 2]))));
  assert.deepEqual([...f32[1]], [0, 1]);
  const rejects = (p: Promise<unknown>, code: string, message: RegExp) =>
    assert.rejects(p, (e: { code?: string; message?: string }) => {
      assert.equal(e.code, code, String(e.message));
      assert.match(e.message!, message);
      return true;
    });
  await rejects(call(() => Promise.resolve([[1]])), "embedder_malformed", /1 vectors for 2 texts/);
  await rejects(call(() => Promise.resolve("nope")), "embedder_malformed", /not an array/);
  await rejects(
    call(() => Promise.resolve([[1, 2], [1]])),
    "embedder_malformed",
    /1 dimensions, not 2/,
  );
  await rejects(call(() => Promise.resolve([[1, NaN], [1, 2]])), "embedder_malformed", /NaN/);
  await rejects(call(() => Promise.resolve([[], []])), "embedder_malformed", /empty/);
  await rejects(
    call(() => Promise.resolve([[1, 2], [1, 2]]), { dimensions: 3 }),
    "embedder_malformed",
    /2 dimensions, not 3/,
  );
  await rejects(call(() => Promise.reject(new Error("boom"))), "embedder_failed", /boom/);
  await rejects(
    call(() => {
      throw new Error("sync boom");
    }),
    "embedder_failed",
    /sync boom/,
  );
  let aborted = false;
  await rejects(
    call((_texts, o?: { signal?: AbortSignal }) =>
      new Promise((_, reject) =>
        o?.signal?.addEventListener("abort", () => {
          aborted = true;
          reject(new Error("stopped"));
        })
      ) as Promise<unknown>
    ),
    "embedder_timeout",
    /within 100 ms/,
  );
  assert.ok(aborted, "the embedder's signal aborts at the deadline");
  const closing = new AbortController();
  closing.abort();
  await rejects(
    call(() => new Promise(() => {}), { signal: closing.signal }),
    "embedder_failed",
    /abandoned/,
  );
  assert.deepEqual(await call(() => Promise.resolve([]), { texts: [] }), []);
});

Deno.test("createRuntime({ search }) refuses bad options before opening anything", async () => {
  assert.equal(semanticSettings(undefined), undefined);
  assert.equal(semanticSettings({}), undefined);
  const embed = Object.assign((t: string[]) => Promise.resolve(t.map(() => [1])), {
    model: "m",
    dimensions: 1,
  });
  const s = semanticSettings({ embed })!;
  assert.equal(s.model, "m");
  assert.equal(s.dimensions, 1);
  assert.deepEqual(s.fusion, { k: 60, lexicalWeight: 1, vectorWeight: 1 });
  assert.equal(semanticSettings({ embed, model: "other", dimensions: 8 })!.model, "other");
  for (
    const bad of [
      { embed: "no" },
      { embed, batchSize: 0 },
      { embed, batchSize: 5000 },
      { embed, dimensions: 1.5 },
      { embed, timeoutMs: -1 },
      { embed, model: "" },
      { embed, fusion: { k: -1 } },
      { embed, fusion: { lexicalWeight: 0, vectorWeight: 0 } },
    ]
  ) {
    await assert.rejects(
      createRuntime({ db: ":memory:", pool: { size: 0 }, search: bad as never }),
      { code: "invalid_request", message: /^search\./ },
      Deno.inspect(bad),
    );
  }
});
