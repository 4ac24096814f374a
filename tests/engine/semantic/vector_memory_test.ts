import assert from "node:assert/strict";
import { unitVector } from "../../../src/engine/semantic/embed_call.ts";
import { VectorMemory } from "../../../src/engine/semantic/vector_memory.ts";

/** A deterministic pseudo-random vector (no Math.random: a failure must replay). */
function vector(seed: number, dims = 64): Float32Array {
  let h = seed * 2654435761;
  return unitVector(Array.from({ length: dims }, () => {
    h = Math.imul(h ^ (h >>> 13), 1274126177);
    return ((h >>> 0) % 1000) / 500 - 1;
  }));
}

Deno.test("VectorMemory.nearest() is the exact top k: tools and the namespace's snippets only", () => {
  const memory = new VectorMemory();
  for (let i = 0; i < 300; i++) {
    memory.set({ namespace: "", path: `t.${i}`, hash: "h", vector: vector(i) });
  }
  for (let i = 0; i < 40; i++) {
    memory.set({ namespace: "acme", path: `snippet:a${i}`, hash: "h", vector: vector(1000 + i) });
    memory.set({ namespace: "globex", path: `snippet:g${i}`, hash: "h", vector: vector(2000 + i) });
  }
  // Two equal vectors: the tie goes by path.
  memory.set({ namespace: "", path: "t.twin", hash: "h", vector: vector(7) });
  const query = vector(99_999);
  const cosine = (v: Float32Array) => v.reduce((s, x, i) => s + x * query[i], 0);
  for (const k of [1, 5, 20, 400]) {
    const got = memory.nearest(query, "acme", k, () => true);
    const expected = [...memory.entries()]
      .filter((e) => e.namespace === "" || e.namespace === "acme")
      .map((e) => ({ path: e.path, similarity: cosine(e.vector) }))
      .sort((a, b) => b.similarity - a.similarity || (a.path < b.path ? -1 : 1))
      .slice(0, k);
    assert.deepEqual(got.map((n) => n.path), expected.map((e) => e.path), `k=${k}`);
    got.forEach((n, i) => assert.ok(Math.abs(n.similarity - expected[i].similarity) < 1e-5));
    assert.ok(got.every((n) => !n.path.startsWith("snippet:g")), "never another tenant's");
  }
  const all = memory.nearest(vector(7), "", 400, () => true).map((n) => n.path);
  assert.deepEqual(all.slice(0, 2), ["t.7", "t.twin"]);
  assert.equal(all.length, 301, "no namespace: tools only");
  // What `live` refuses (a document gone from the catalogue) takes no place.
  const live = memory.nearest(vector(7), "", 2, (_ns, path) => path !== "t.7").map((n) => n.path);
  assert.deepEqual(live[0], "t.twin");
  assert.equal(live.length, 2);
  assert.equal(memory.delete("", "t.twin"), true);
  assert.equal(memory.delete("", "t.twin"), false);
  assert.equal(memory.size, 300 + 80);
});
