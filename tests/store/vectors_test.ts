import assert from "node:assert/strict";
import { join } from "node:path";
import { openDb } from "../../src/store/client.ts";
import { blobOf, VectorStore } from "../../src/store/vectors.ts";

const row = (namespace: string, path: string, values: number[]) => ({
  namespace,
  path,
  hash: `h-${path}`,
  vector: new Float32Array(values),
});

for (const kind of ["memory", "file"] as const) {
  Deno.test(`VectorStore keeps F32_BLOB vectors per model and size (${kind} db)`, async () => {
    const dir = await Deno.makeTempDir();
    const db = await openDb(kind === "memory" ? ":memory:" : `file:${join(dir, "v.db")}`);
    try {
      const store = new VectorStore(db, "model-a");
      assert.equal(await store.storedDimensions(), undefined);
      await store.put(3, [
        row("", "math.add", [1, 0, 0]),
        row("", "math.sub", [0, 1, 0]),
        row("acme", "snippet:x", [0, 0, 1]),
      ]);
      assert.equal(await store.storedDimensions(), 3);
      // Another model of another size is kept apart; this model still says 3.
      await new VectorStore(db, "model-b").put(2, [row("", "math.add", [1, 1])]);
      assert.equal(await store.storedDimensions(), 3);
      assert.equal(await new VectorStore(db, "model-b").storedDimensions(), 2);
      // Replacing a row, reading pages in key order.
      await store.put(3, [{ ...row("", "math.add", [0.5, 0.5, 0]), hash: "h2" }]);
      const first = await store.page(3, undefined, 2);
      assert.deepEqual(first.map((r) => [r.namespace, r.path]), [["", "math.add"], [
        "",
        "math.sub",
      ]]);
      assert.equal(first[0].hash, "h2");
      assert.deepEqual([...first[0].vector], [0.5, 0.5, 0]);
      const rest = await store.page(3, ["", "math.sub"], 2);
      assert.deepEqual(rest.map((r) => r.path), ["snippet:x"]);
      // The column is libSQL's vector type: its functions read it.
      const rs = await db.execute({
        sql:
          `SELECT path, vector_distance_cos(embedding, vector32(?)) AS d FROM search_vectors_f32_3
          WHERE model = 'model-a' ORDER BY d, path`,
        args: [blobOf(new Float32Array([0, 0, 1]))],
      });
      assert.equal(rs.rows[0].path, "snippet:x");
      assert.ok(Math.abs(Number(rs.rows[0].d)) < 1e-6);
      // A vector of the wrong size is refused by the table.
      await assert.rejects(store.put(3, [row("", "bad", [1, 2])]), /CHECK constraint/);
      await store.remove(3, [{ namespace: "acme", path: "snippet:x" }]);
      assert.equal((await store.page(3, undefined)).length, 2);
      await assert.rejects(store.ensure(0), { code: "invalid_request" });
    } finally {
      db.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
