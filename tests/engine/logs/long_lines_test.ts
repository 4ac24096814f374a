/**
 * Console output over its inline limit: the outcome shows what fits (a line that crosses the
 * limit cut with a marker) and the reference to the rest, and the stored lines are whole.
 */
import assert from "node:assert/strict";
import { createRuntime, type ExecuteResult } from "../../../mod.ts";
import { cutLine, LogBuffer, MIN_CUT_LINE_BYTES } from "../../../src/engine/logs/buffer.ts";

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

function completed(r: ExecuteResult): ExecuteResult {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 500));
  return r;
}

Deno.test("execute() cuts a long console line inline, keeps it whole, and names the logRef", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 }, typecheck: "off" });
  const r = completed(
    await rt.execute({
      code: `console.log("short"); console.log("é".repeat(30_000)); console.log("after"); return 1`,
    }),
  );
  // The first line whole, the long one cut to the room left, nothing after it.
  assert.equal(r.logs.length, 2);
  assert.equal(r.logs[0].message, "short");
  const cut = r.logs[1].message;
  assert.match(cut, /^é+… \[cut: 60000 bytes in all; readLogs has the whole line\]$/);
  assert.ok(bytes(cut) <= 16 * 1024 - bytes("short"), String(bytes(cut)));
  assert.equal(r.meta.logsTruncated, true);
  const logRef = r.meta.logRef!;
  assert.match(logRef, /^log_/);
  const page = await rt.readLogs({ logRef });
  assert.deepEqual(page.items.map((l) => l.message), ["short", "é".repeat(30_000), "after"]);
  // A script reads the same whole line by the same reference.
  const read = completed(
    await rt.execute({
      code:
        "const p = await codemode.readLogs({ logRef: input }); return p.entries[1].message.length",
      input: logRef,
    }),
  );
  assert.equal((read as { result: unknown }).result, 30_000);

  // Output that fits names no reference.
  const small = completed(await rt.execute({ code: `console.log("hi"); return 1` }));
  assert.equal(small.meta.logsTruncated, false);
  assert.equal(small.meta.logRef, undefined);
});

Deno.test("LogBuffer.inline() cuts the crossing line only when there is room to show it", () => {
  const buffer = new LogBuffer(10_000, 1_000, 0);
  buffer.add({ level: "log", message: "a".repeat(600) });
  buffer.add({ level: "warn", message: "b".repeat(2_000) });
  buffer.add({ level: "log", message: "c" });
  const inline = buffer.inline();
  assert.deepEqual(inline.map((l) => l.level), ["log", "warn"]);
  assert.ok(inline[1].message.startsWith("bbb") && bytes(inline[1].message) <= 400);
  assert.equal(buffer.truncated, true);
  assert.equal(buffer.entries[1].message, "b".repeat(2_000));

  // Less room than a cut line needs: the line is left out, not shown as a stub.
  const tight = new LogBuffer(10_000, 1_000, 0);
  tight.add({ level: "log", message: "a".repeat(1_000 - MIN_CUT_LINE_BYTES + 1) });
  tight.add({ level: "log", message: "b".repeat(500) });
  assert.equal(tight.inline().length, 1);

  // A cut never splits a character, and a line that fits is left alone.
  const emoji = cutLine("😀".repeat(100), 150);
  assert.ok(bytes(emoji) <= 150);
  assert.ok(!emoji.includes("\uFFFD"));
  assert.equal(cutLine("fits", 150), "fits");
});
