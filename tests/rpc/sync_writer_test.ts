/**
 * The guest's frame writer: frames go out whole and in order, at the end of the microtask burst
 * that sent them or at once when enough wait, and nothing after a failed write.
 */
import assert from "node:assert/strict";
import { SYNC_FLUSH_CHARS, SyncFrameWriter } from "../../src/rpc/sync_writer.ts";

const text = (chunks: Uint8Array[]) => chunks.map((c) => new TextDecoder().decode(c));

Deno.test("SyncFrameWriter writes a burst once, at the end of its microtasks", async () => {
  const writes: Uint8Array[] = [];
  const writer = new SyncFrameWriter((b) => void writes.push(b), () => {});
  for (let i = 0; i < 10; i++) writer.send(`{"id":${i}}`);
  assert.equal(writes.length, 0, "written before the burst ended");
  await Promise.resolve();
  assert.deepEqual(
    text(writes),
    [Array.from({ length: 10 }, (_, i) => `{"id":${i}}\n`).join("")],
  );
});

Deno.test("SyncFrameWriter writes at once when enough frames wait, keeping their order", async () => {
  const writes: Uint8Array[] = [];
  const writer = new SyncFrameWriter((b) => void writes.push(b), () => {});
  // Every frame the same length, so each batch holds the same number of them.
  const frame = (i: number) =>
    JSON.stringify({ id: String(i).padStart(6, "0"), pad: "x".repeat(100) });
  const count = Math.ceil(SYNC_FLUSH_CHARS / (frame(0).length + 1)) * 3; // a newline each
  for (let i = 0; i < count; i++) writer.send(frame(i));
  // Three full batches are on the sink before the sender yields; the rest follows its burst.
  assert.equal(writes.length, 3);
  await Promise.resolve();
  assert.equal(writes.length, 3, "an empty write after the burst");
  for (let i = count; i < count + 5; i++) writer.send(frame(i));
  await Promise.resolve();
  const lines = text(writes).join("").split("\n").filter(Boolean);
  assert.deepEqual(
    lines.map((l) => Number(JSON.parse(l).id)),
    Array.from({ length: count + 5 }, (_, i) => i),
  );
});

Deno.test("SyncFrameWriter stops after a failed write and reports it", async () => {
  const errors: unknown[] = [];
  let calls = 0;
  const writer = new SyncFrameWriter(() => {
    calls++;
    throw new Error("broken pipe");
  }, (err) => errors.push(err));
  writer.send("{}");
  await Promise.resolve();
  assert.equal(calls, 1);
  assert.equal((errors[0] as Error).message, "broken pipe");
  writer.send("{}");
  await Promise.resolve();
  assert.equal(calls, 1, "wrote after the sink failed");
  // Over the threshold the sender itself hears nothing more either.
  writer.send("x".repeat(SYNC_FLUSH_CHARS));
  assert.equal(calls, 1);
});
