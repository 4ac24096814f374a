/**
 * Results too large to return inline, end to end on a real runtime: real sandbox children
 * return them, real libSQL stores them as artifacts, and they are read back in pages from the
 * library, from a script in the same namespace, and not at all from another namespace.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import {
  type CompletedResult,
  CordonError,
  createRuntime,
  defineConnector,
  type ErrorCode,
  type ExecuteResult,
  type ResultReference,
  type Runtime,
} from "../../../mod.ts";
import { encodeValue } from "../../../src/rpc/codec.ts";
import { storeResult } from "../../../src/engine/artifacts/results.ts";
import { ArtifactStore } from "../../../src/store/artifacts.ts";
import { openDb } from "../../../src/store/client.ts";
import { migrate } from "../../../src/store/migrations.ts";

const gate = defineConnector({
  name: "gate",
  description: "A gated step",
  tools: {
    pass: {
      description: "Needs approval",
      input: z.object({}),
      requiresApproval: true,
      execute: () => "passed",
    },
  },
});

/** About 300 KB of JSON: 2,000 records, with characters of 2, 3 and 4 UTF-8 bytes in each. */
const BIG_CODE = `return Array.from({ length: 2000 }, (_, i) => ({
  id: i, name: "record " + i, note: "naïve € 😀 " + "x".repeat(100), tags: ["a", "b"],
}))`;

function completed(r: ExecuteResult): CompletedResult {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 600));
  return r as CompletedResult;
}

function failed(r: ExecuteResult, code: ErrorCode) {
  assert.equal(r.status, "error", Deno.inspect(r).slice(0, 600));
  const error = (r as { error: { code: string; details?: Record<string, unknown> } }).error;
  assert.equal(error.code, code, Deno.inspect(error));
  return error;
}

function refused(code: ErrorCode): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof CordonError, String(err));
    assert.equal(err.code, code, err.message);
    return true;
  };
}

/** Every page from `cursor` on, joined. */
async function readAll(
  rt: Runtime,
  resultRef: string,
  o: { cursor?: string; limit?: number; namespace?: string } = {},
): Promise<{ text: string; pages: number }> {
  let text = "";
  let pages = 0;
  let cursor = o.cursor;
  do {
    const page = await rt.readResult({ resultRef, cursor, limit: o.limit, namespace: o.namespace });
    assert.ok(new TextEncoder().encode(page.text).byteLength <= (o.limit ?? 16_000) + 3);
    text += page.text;
    pages++;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { text, pages };
}

Deno.test("large results are stored as artifacts and read back in pages", async (t) => {
  await using rt = await createRuntime({
    connectors: [gate],
    db: ":memory:",
    pool: { size: 1 },
    typecheck: "off",
    // A paused run lets its child go at once, so approving replays it.
    durability: { holdMs: 1 },
  });

  await t.step("a 300 KB result comes back as a reference with a preview", async () => {
    const r = completed(await rt.execute({ code: BIG_CODE, namespace: "team-a" }));
    const ref = r.result as ResultReference;
    const expected = Array.from({ length: 2000 }, (_, i) => ({
      id: i,
      name: "record " + i,
      note: "naïve € 😀 " + "x".repeat(100),
      tags: ["a", "b"],
    }));
    const json = JSON.stringify(expected);
    const bytes = new TextEncoder().encode(json).byteLength;
    assert.ok(bytes > 250_000 && bytes < 350_000, String(bytes));
    assert.equal(ref.truncated, true);
    assert.equal(ref.resultRef, `results/${r.executionId}.json@1`);
    assert.equal(r.meta.resultRef, ref.resultRef);
    assert.equal(ref.mimeType, "application/json");
    assert.equal(ref.totalBytes, bytes);
    assert.ok(json.startsWith(ref.preview) && ref.preview.length === 2_000);
    assert.equal(ref.nextCursor, String(new TextEncoder().encode(ref.preview).byteLength));
    assert.equal(ref.shape.type, "array");
    const shape = ref.shape as { length: number; head: unknown[] };
    assert.equal(shape.length, 2000);
    assert.ok(shape.head.length >= 1 && shape.head.length <= 10, String(shape.head.length));
    assert.deepEqual(shape.head, expected.slice(0, shape.head.length));
    assert.match(ref.read, /codemode\.readResult\(\{ resultRef: "results\/exec_/);
    // The reference is what an answer carries: a small part of the value.
    assert.ok(JSON.stringify(ref).length < 8_000, String(JSON.stringify(ref).length));

    // Pages from the start concatenate to exactly the JSON text; the preview and the pages
    // after it do too. Small pages cut among the multi-byte characters and still decode.
    const whole = await readAll(rt, ref.resultRef, { namespace: "team-a" });
    assert.equal(whole.text, json);
    assert.equal(whole.pages, Math.ceil(bytes / 16_000));
    assert.deepEqual(JSON.parse(whole.text), expected);
    const rest = await readAll(rt, ref.resultRef, {
      cursor: ref.nextCursor,
      limit: 7_001,
      namespace: "team-a",
    });
    assert.equal(ref.preview + rest.text, json);

    // The artifact is the execution's, in its namespace; the row keeps the reference.
    const file = await rt.artifact(ref.resultRef, { namespace: "team-a" });
    assert.equal(new TextDecoder().decode(file?.data), json);
    assert.equal(file?.info.sourceExecutionId, r.executionId);
    assert.deepEqual((await rt.execution(r.executionId))?.result, ref);
  });

  await t.step("a script reads its namespace's results; another namespace cannot", async () => {
    const big = completed(await rt.execute({ code: BIG_CODE, namespace: "team-a" }));
    const resultRef = big.meta.resultRef!;
    const reader = `let text = "", cursor, pages = 0;
      do {
        const page = await codemode.readResult({ resultRef: input, cursor, limit: 65536 });
        text += page.text; cursor = page.nextCursor; pages++;
      } while (cursor);
      const rows = JSON.parse(text);
      return { rows: rows.length, last: rows.at(-1).name, pages }`;
    // The declarations a model's code is checked against know codemode.readResult.
    const mine = completed(
      await rt.execute({
        code: reader.replace("resultRef: input", "resultRef: input as string"),
        input: resultRef,
        namespace: "team-a",
        typecheck: "strict",
      }),
    );
    assert.deepEqual(mine.diagnostics, []);
    const pages = Math.ceil((big.result as ResultReference).totalBytes / 65536);
    assert.deepEqual(mine.result, { rows: 2000, last: "record 1999", pages });

    const theirs = failed(
      await rt.execute({ code: reader, input: resultRef, namespace: "team-b" }),
      "not_found",
    );
    assert.match(String((theirs as { message?: string }).message), /no stored result/);
    await assert.rejects(
      rt.readResult({ resultRef, namespace: "team-b" }),
      refused("not_found"),
    );
    assert.equal(await rt.artifact(resultRef, { namespace: "team-b" }), undefined);
    // The bare name (newest version) and the artifact:// form read the same page.
    const bare = resultRef.slice(0, resultRef.lastIndexOf("@"));
    for (const form of [bare, `artifact://${resultRef}`]) {
      const page = await rt.readResult({ resultRef: form, limit: 100, namespace: "team-a" });
      assert.equal(page.resultRef, resultRef);
      assert.equal(page.offset, 0);
    }
  });

  await t.step("the hard cap still fails the run with result_too_large", async () => {
    // Over the default cap (4,000,000 bytes): the child refuses it before sending.
    const error = failed(
      await rt.execute({ code: "return 'x'.repeat(4_100_000)" }),
      "result_too_large",
    );
    assert.equal(error.details?.limit, 4_000_000);
    // A run's own cap, under its inline limit's default: no artifact is written.
    failed(
      await rt.execute({ code: BIG_CODE, limits: { maxResultBytes: 100_000 } }),
      "result_too_large",
    );
    // Its own inline limit: a 5 KB value is stored; one under the limit is not.
    const small = completed(
      await rt.execute({ code: "return 'y'.repeat(5_000)", limits: { inlineResultBytes: 1_000 } }),
    );
    assert.equal((small.result as ResultReference).totalBytes, 5_002);
    assert.deepEqual((small.result as ResultReference).shape, { type: "string", length: 5_000 });
    const inline = completed(
      await rt.execute({ code: "return 'y'.repeat(998)", limits: { inlineResultBytes: 1_000 } }),
    );
    assert.equal(inline.result, "y".repeat(998));
    assert.equal(inline.meta.resultRef, undefined);
  });

  await t.step("a replayed run gives the same reference, written once", async () => {
    const code = `await gate.pass({}); return { keys: Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => ["key" + i, "v".repeat(20)])) }`;
    const paused = await rt.execute({ code });
    assert.equal(paused.status, "paused");
    // The child is let go (hold 1 ms): approving replays the code in a new child.
    for (let i = 0; i < 100 && (await rt.execution(paused.executionId))?.status !== "paused"; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 30));
    const done = completed(await rt.approve(paused.executionId));
    assert.equal(done.meta.replayed, true);
    const ref = done.result as ResultReference;
    const name = `results/${paused.executionId}.json`;
    assert.equal(ref.resultRef, `${name}@1`);
    assert.deepEqual(ref.shape, { type: "object", keys: ["keys"], keyCount: 1 });

    // One version: the replay wrote it once, and the row, read back, names the same one.
    assert.equal((await rt.artifactVersions(name)).length, 1);
    assert.deepEqual((await rt.execution(paused.executionId))?.result, ref);
    const { text } = await readAll(rt, ref.resultRef);
    assert.equal(Object.keys(JSON.parse(text).keys).length, 3000);
  });

  await t.step("deleting an execution deletes its stored result; so does retention", async () => {
    const a = completed(await rt.execute({ code: BIG_CODE, namespace: "team-c" }));
    const b = completed(await rt.execute({ code: BIG_CODE, namespace: "team-c" }));
    const kept = await rt.saveArtifact({ name: "notes.txt", data: "mine", namespace: "team-c" });
    assert.ok(await rt.deleteExecution(a.executionId));
    assert.equal(await rt.artifact(a.meta.resultRef!, { namespace: "team-c" }), undefined);
    // Its version counter went too (nothing of it is left): the name starts again from 1.
    const again = await rt.saveArtifact({
      name: `results/${a.executionId}.json`,
      data: "{}",
      namespace: "team-c",
    });
    assert.equal(again.version, 1);
    assert.ok(await rt.deleteArtifact(again.name, { namespace: "team-c" }));
    assert.ok(await rt.artifact(b.meta.resultRef!, { namespace: "team-c" }));
    assert.equal(await rt.pruneExecutions({ olderThanMs: 0 }) > 0, true);
    assert.equal(await rt.execution(b.executionId), undefined);
    assert.equal(await rt.artifact(b.meta.resultRef!, { namespace: "team-c" }), undefined);
    // Other artifacts of the namespace are not the executions' to delete.
    assert.ok(await rt.artifact(kept.ref, { namespace: "team-c" }));
  });

  await t.step("pages are bounded, cut between characters, and checked", async () => {
    const r = completed(
      await rt.execute({ code: "return '😀'.repeat(20_000)", namespace: "team-d" }),
    );
    const resultRef = r.meta.resultRef!;
    const o = { resultRef, namespace: "team-d" };
    // A 1-byte page still makes progress: the first character (a quote) then a whole emoji.
    const first = await rt.readResult({ ...o, limit: 1 });
    assert.deepEqual([first.text, first.nextCursor], ['"', "1"]);
    const emoji = await rt.readResult({ ...o, cursor: "1", limit: 2 });
    assert.deepEqual([emoji.text, emoji.nextCursor], ["😀", "5"]);
    const page = await rt.readResult({ ...o, cursor: "1", limit: 10 });
    assert.deepEqual([page.text, page.nextCursor], ["😀😀", "9"]);
    await assert.rejects(rt.readResult({ ...o, cursor: "2" }), refused("invalid_request"));
    await assert.rejects(rt.readResult({ ...o, cursor: "-1" }), refused("invalid_request"));
    await assert.rejects(rt.readResult({ ...o, cursor: "999999" }), refused("invalid_request"));
    await assert.rejects(rt.readResult({ ...o, limit: 2_000_000 }), refused("invalid_request"));
    await assert.rejects(rt.readResult({ ...o, limit: 0 }), refused("invalid_request"));
    await assert.rejects(
      rt.readResult({ resultRef: "../etc/passwd", namespace: "team-d" }),
      refused("invalid_request"),
    );
    const png = await rt.saveArtifact({
      name: "chart.png",
      data: new Uint8Array([137, 80]),
      namespace: "team-d",
    });
    await assert.rejects(
      rt.readResult({ resultRef: png.ref, namespace: "team-d" }),
      refused("invalid_request"),
    );
    // The last page ends the text and has no nextCursor.
    const last = await rt.readResult({ ...o, cursor: "79997" });
    assert.deepEqual([last.text, last.nextCursor, last.totalBytes], ['😀"', undefined, 80_002]);
    const all = await readAll(rt, resultRef, { limit: 4_099, namespace: "team-d" });
    assert.equal(all.text, JSON.stringify("😀".repeat(20_000)));
  });
});

Deno.test("storeResult() is idempotent for the same bytes; new bytes are a new version", async () => {
  const db = await openDb(":memory:");
  try {
    await migrate(db);
    const store = new ArtifactStore(db);
    const value = { rows: ["a", "b"] };
    const json = JSON.stringify(encodeValue(value));
    const o = { namespace: "ns", executionId: "exec_1", value, json, maxBytes: 1_000 };
    const first = await storeResult(store, o);
    const again = await storeResult(store, o);
    assert.ok(first.ok && again.ok);
    assert.equal(first.reference.resultRef, "results/exec_1.json@1");
    assert.deepEqual(again.reference, first.reference);
    assert.equal((await store.versions("ns", "results/exec_1.json")).length, 1);
    const changed = await storeResult(store, { ...o, json: '{"rows":["c"]}' });
    assert.ok(changed.ok);
    assert.equal(changed.reference.resultRef, "results/exec_1.json@2");
    // Past the artifact cap the result is refused, and nothing is written.
    const over = await storeResult(store, { ...o, executionId: "exec_2", maxBytes: 10 });
    assert.ok(!over.ok);
    assert.equal(over.error.code, "result_too_large");
    assert.equal((await store.versions("ns", "results/exec_2.json")).length, 0);
  } finally {
    db.close();
  }
});
