import assert from "node:assert/strict";
import { MAX_STREAM_CHARS, ProgramOutput } from "../../../src/engine/programs/output.ts";

Deno.test("ProgramOutput: poll advances, log does not, partial lines show last", () => {
  const out = new ProgramOutput();
  out.append("a\nb\nc", "stdout");
  // A partial last line shows with every poll that reaches it, until its line ends.
  assert.deepEqual(out.poll(2), { output: "a\nb\nc", offset: 0, nextOffset: 2 });
  assert.deepEqual(out.log(0, 1), { output: "a", offset: 0, nextOffset: 1 });
  assert.deepEqual(out.poll(), { output: "c", offset: 2, nextOffset: 2 });
  out.append("d\r\ne\n", "stderr");
  assert.deepEqual(out.poll(), { output: "cd\ne", offset: 2, nextOffset: 4 });
  assert.deepEqual(out.poll(), { output: "", offset: 4, nextOffset: 4 });
  assert.deepEqual(out.log(1, 2), { output: "b\ncd", offset: 1, nextOffset: 3 });
  assert.deepEqual(out.log(), { output: "a\nb\ncd\ne", offset: 0, nextOffset: 4 });
  assert.deepEqual(out.log(99), { output: "", offset: 4, nextOffset: 4 });
  assert.deepEqual(out.streams(), { stdout: "a\nb\nc", stderr: "d\ne\n" });
});

Deno.test("ProgramOutput: old lines drop past maxLines, offsets keep counting", () => {
  const out = new ProgramOutput(3);
  for (let i = 0; i < 10; i++) out.append(`${i}\n`, "stdout");
  assert.deepEqual(out.poll(), { output: "7\n8\n9", offset: 7, nextOffset: 10 });
  assert.deepEqual(out.log(0, 1), { output: "7", offset: 7, nextOffset: 8 });
  out.append("tail", "stdout");
  out.finish();
  assert.deepEqual(out.poll(), { output: "tail", offset: 10, nextOffset: 11 });
});

Deno.test("ProgramOutput: a stream past its bound is cut and says so", () => {
  const out = new ProgramOutput(10);
  const big = "x".repeat(MAX_STREAM_CHARS);
  out.append(big, "stdout");
  out.append("more", "stdout");
  const { stdout } = out.streams();
  assert.equal(stdout.startsWith(big), true);
  assert.match(stdout, /\[stdout cut at \d+ characters\]\n$/);
});
