/**
 * The Worker that parses big frames off the host's main thread: it joins a
 * line's bytes, checks its nesting, parses it, decodes the values the peer
 * would decode (`params`, `result`) into {@link Predecoded} boxes, and posts
 * the frame back in slices (`value_slices.ts`). Started by `big_frames.ts`.
 *
 * @module
 */
import { decodeValue, Predecoded } from "./codec.ts";
import { type FrameFault, MAX_FRAME_NESTING, nestsDeeperThan } from "./framing.ts";
import { type Slice, sliceValue } from "./value_slices.ts";
import type { BigFrameReply, BigFrameRequest } from "./big_frame_messages.ts";

/** The envelope keys a peer reads; the values under `DECODED_KEYS` are decoded here. */
const RAW_KEYS = ["jsonrpc", "id", "method", "error"] as const;
const DECODED_KEYS = ["params", "result"] as const;

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<BigFrameRequest>) => void) | null;
  postMessage(message: BigFrameReply, transfer?: Transferable[]): void;
};

type Sliced = IteratorResult<Slice & { transfer: ArrayBuffer[] }, void>;

/** Lines waiting their turn: one frame is sent at a time, so frames come back whole and in order. */
const waiting: { id: number; parts: Uint8Array[] }[] = [];
/** The frame being sent, with its next slice made ahead. */
let sending: {
  id: number;
  chars: number;
  slices: Generator<Slice & { transfer: ArrayBuffer[] }>;
  next: Sliced;
} | undefined;

scope.onmessage = (e) => {
  const message = e.data;
  if ("ack" in message) {
    if (sending?.id === message.ack) sendSlice();
    return;
  }
  waiting.push(message);
  if (!sending) startNext();
};

function startNext(): void {
  while (!sending && waiting.length > 0) {
    const { id, parts } = waiting.shift()!;
    const parsed = parse(parts);
    if ("fault" in parsed) {
      scope.postMessage({ id, fault: parsed.fault });
      continue;
    }
    const slices = sliceValue(parsed.frame);
    sending = { id, chars: parsed.chars, slices, next: slices.next() };
    sendSlice();
  }
}

/**
 * Posts one slice. The next waits for the host's ack: with one slice in
 * flight the host gets a turn of its event loop between any two (queued
 * messages would be read one after another in one stretch).
 */
function sendSlice(): void {
  const job = sending!;
  const slice = job.next.value!;
  job.next = job.slices.next();
  const last = job.next.done === true;
  scope.postMessage(
    { id: job.id, kinds: slice.kinds, values: slice.values, chars: job.chars, last },
    [slice.kinds.buffer as ArrayBuffer, ...slice.transfer],
  );
  if (last) {
    sending = undefined;
    startNext();
  }
}

function parse(parts: Uint8Array[]): { frame: unknown; chars: number } | { fault: FrameFault } {
  let total = 0;
  for (const p of parts) total += p.length;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    bytes.set(p, offset);
    offset += p.length;
  }
  const line = new TextDecoder().decode(bytes);
  if (nestsDeeperThan(line, MAX_FRAME_NESTING)) {
    return { fault: { kind: "frame_too_deep", limit: MAX_FRAME_NESTING } };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return { fault: { kind: "malformed", excerpt: line.slice(0, 120) } };
  }
  return { frame: shape(raw), chars: line.length };
}

/**
 * The frame as the peer will read it: the envelope keys it reads, with
 * `params` and `result` decoded (or their decoding failure) in boxes. A
 * frame that is not an object goes back as it is, for the peer to refuse.
 */
function shape(raw: unknown): unknown {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const frame: Record<string, unknown> = {};
  for (const key of RAW_KEYS) if (Object.hasOwn(raw, key)) frame[key] = (raw as never)[key];
  for (const key of DECODED_KEYS) {
    if (!Object.hasOwn(raw, key)) continue;
    try {
      frame[key] = Predecoded.of(decodeValue((raw as never)[key]));
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      frame[key] = Predecoded.failed(e.name, e.message);
    }
  }
  return frame;
}
