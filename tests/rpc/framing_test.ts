import assert from "node:assert/strict";
import {
  type FrameFault,
  FrameWriter,
  LineSplitter,
  MAX_FRAME_NESTING,
  nestsDeeperThan,
  readFrames,
} from "../../src/rpc/framing.ts";
import { encodeValue, MAX_VALUE_DEPTH } from "../../src/rpc/codec.ts";

const enc = new TextEncoder();

function streamOf(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(chunks.map((c) => typeof c === "string" ? enc.encode(c) : c));
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  maxFrameBytes = 1024,
  maxTotalBytes = 1 << 20,
) {
  const frames: unknown[] = [];
  const faults: FrameFault[] = [];
  await readFrames(stream, {
    maxFrameBytes,
    maxTotalBytes,
    onFrame: (f) => frames.push(f),
    onFault: (f) => faults.push(f),
  });
  return { frames, faults };
}

Deno.test("LineSplitter.push() joins lines split across chunks", () => {
  const s = new LineSplitter(100);
  assert.deepEqual(s.push(enc.encode('{"a"')), []);
  assert.deepEqual(s.push(enc.encode(':1}\n{"b":2}\n{"c"')), ['{"a":1}', '{"b":2}']);
  assert.equal(s.pendingBytes, 4);
});

Deno.test("LineSplitter.push() keeps multi-byte characters split across chunks", () => {
  const bytes = enc.encode('"héllo"\n');
  const s = new LineSplitter(100);
  assert.deepEqual([...s.push(bytes.subarray(0, 3)), ...s.push(bytes.subarray(3))], ['"héllo"']);
});

Deno.test("LineSplitter.push() refuses a line over the cap before it ends", () => {
  const s = new LineSplitter(10);
  assert.throws(() => s.push(enc.encode("x".repeat(11))), RangeError);
});

Deno.test("readFrames() delivers frames in order and skips blank lines", async () => {
  const { frames, faults } = await collect(streamOf('{"a":1}\n\n', '{"b":2}\r\n'));
  assert.deepEqual(frames, [{ a: 1 }, { b: 2 }]);
  assert.deepEqual(faults, []);
});

Deno.test("readFrames() stops at a malformed line and reports it", async () => {
  const { frames, faults } = await collect(streamOf('{"a":1}\nnot json\n{"b":2}\n'));
  assert.deepEqual(frames, [{ a: 1 }]);
  assert.equal(faults[0].kind, "malformed");
});

Deno.test("readFrames() refuses a frame nested past MAX_FRAME_NESTING before parsing it", async () => {
  // 500,000 levels in a 1 MB line took V8's JSON.parse 1.3 s of the host's event loop.
  const deep = "[".repeat(500_000) + "]".repeat(500_000);
  const { frames, faults } = await collect(streamOf('{"a":1}\n', deep + "\n"), 2 << 20);
  assert.deepEqual(frames, [{ a: 1 }]);
  assert.deepEqual(faults, [{ kind: "frame_too_deep", limit: MAX_FRAME_NESTING }]);
  // The deepest value the codec sends (Maps cost three levels each) still passes.
  let value: unknown = 1;
  for (let i = 0; i < MAX_VALUE_DEPTH - 3; i++) value = new Map([["k", value]]);
  const frame = JSON.stringify({ jsonrpc: "2.0", id: 1, result: encodeValue(value) });
  const ok = await collect(streamOf(frame + "\n"), 1 << 20);
  assert.deepEqual(ok.faults, []);
  assert.equal(ok.frames.length, 1);
});

Deno.test("nestsDeeperThan() counts brackets outside strings only", () => {
  // Brackets in strings, after escaped quotes and escaped backslashes, do not count.
  const tricky = String.raw`["[[[[", "\\", "\\\"[[[", {"a": {}}]`;
  assert.equal(JSON.parse(tricky).length, 4);
  assert.equal(nestsDeeperThan(tricky, 3), false);
  assert.equal(nestsDeeperThan(tricky, 2), true);
  assert.equal(nestsDeeperThan("[1, [2, [3]]]", 3), false);
  assert.equal(nestsDeeperThan("[1, [2, [3]]]", 2), true);
});

Deno.test("readFrames() stops at a frame over the cap", async () => {
  const { faults } = await collect(streamOf("[" + "1,".repeat(600) + "1]\n"), 1000);
  assert.deepEqual(faults, [{ kind: "frame_too_large", limit: 1000 }]);
});

Deno.test("readFrames() stops when the total output passes its cap", async () => {
  const many = Array.from({ length: 100 }, () => '{"x":1}\n');
  const { frames, faults } = await collect(streamOf(...many), 1000, 200);
  assert.ok(frames.length < 100);
  assert.deepEqual(faults, [{ kind: "output_too_large", limit: 200 }]);
});

Deno.test("FrameWriter.send() never interleaves concurrent frames", async () => {
  const written: string[] = [];
  const dec = new TextDecoder();
  const w = new FrameWriter(async (bytes) => {
    // Write in two halves with a yield between, as a slow pipe would.
    const mid = bytes.length >> 1;
    written.push(dec.decode(bytes.subarray(0, mid)));
    await new Promise((r) => setTimeout(r, 1));
    written.push(dec.decode(bytes.subarray(mid)));
  });
  await Promise.all([w.send('{"n":1}'), w.send('{"n":2}'), w.send('{"n":3}')]);
  assert.equal(written.join(""), '{"n":1}\n{"n":2}\n{"n":3}\n');
});

Deno.test("FrameWriter.send() coalesces frames queued behind a write, in order", async () => {
  const writes: string[] = [];
  const dec = new TextDecoder();
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  const w = new FrameWriter(async (bytes) => {
    writes.push(dec.decode(bytes));
    if (writes.length === 1) await gate;
  });
  const first = w.send('{"n":0}');
  await Promise.resolve(); // the first write is now in flight
  await new Promise((r) => setTimeout(r, 0));
  const rest = Array.from({ length: 100 }, (_, i) => w.send(`{"n":${i + 1}}`));
  release();
  await Promise.all([first, ...rest]);
  await w.flush();
  assert.equal(writes.length, 2);
  assert.equal(writes[0], '{"n":0}\n');
  assert.equal(writes[1], Array.from({ length: 100 }, (_, i) => `{"n":${i + 1}}\n`).join(""));
});

Deno.test("readFrames() reads a byte reader into a reused buffer without losing a split frame", async () => {
  const parts = ['{"a":', '1}\n{"b":2}', "\n"].map((p) => enc.encode(p));
  const reader = {
    read(buffer: Uint8Array): Promise<number | null> {
      const next = parts.shift();
      if (!next) return Promise.resolve(null);
      buffer.set(next);
      return Promise.resolve(next.length);
    },
  };
  const frames: unknown[] = [];
  await readFrames(reader, {
    maxFrameBytes: 100,
    maxTotalBytes: 1000,
    onFrame: (f) => frames.push(f),
    onFault: () => assert.fail("no fault expected"),
  });
  assert.deepEqual(frames, [{ a: 1 }, { b: 2 }]);
});

Deno.test("LineSplitter.pushLines() hands a line over its raw threshold back as bytes, in few blocks", () => {
  const s = new LineSplitter(1 << 24, 1000);
  const line = "é".repeat(300_000);
  const bytes = enc.encode(`{"a":1}\n${line}\n{"b":2}\n`);
  const out: (string | { parts: Uint8Array[]; bytes: number })[] = [];
  for (let i = 0; i < bytes.length; i += 4096) {
    out.push(...s.pushLines(bytes.subarray(i, i + 4096)));
  }
  assert.equal(out.length, 3);
  assert.equal(out[0], '{"a":1}');
  assert.equal(out[2], '{"b":2}');
  const raw = out[1] as { parts: Uint8Array[]; bytes: number };
  assert.equal(raw.bytes, 600_000);
  // Blocks grow with the line: far fewer parts than the 147 chunks it came in.
  assert.ok(raw.parts.length < 20, `${raw.parts.length} parts`);
  const joined = new Uint8Array(raw.bytes);
  let at = 0;
  for (const p of raw.parts) {
    joined.set(p, at);
    at += p.length;
  }
  assert.equal(new TextDecoder().decode(joined), line);
  // Each part owns its buffer from its start, so it can be transferred as it is.
  for (const p of raw.parts) assert.equal(p.byteOffset, 0);
});

Deno.test("readFrames() with sliceMs gives the event loop turns while a flood that is all ready is read", async () => {
  const chunk = enc.encode('{"x":1}\n'.repeat(1000));
  const flood = () => ReadableStream.from(Array.from({ length: 300 }, () => chunk));
  const turnsDuring = async (sliceMs?: number) => {
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    let frames = 0;
    await readFrames(flood(), {
      maxFrameBytes: 1024,
      maxTotalBytes: 1 << 24,
      sliceMs,
      onFrame: () => {
        frames++;
        // A little work per frame, as a host's dispatch does.
        for (let i = 0; i < 200; i++) Math.sqrt(i);
      },
      onFault: () => assert.fail("no fault expected"),
    });
    clearInterval(ticker);
    assert.equal(frames, 300_000);
    return turns;
  };
  assert.equal(await turnsDuring(undefined), 0);
  assert.ok(await turnsDuring(0) > 0);
});
