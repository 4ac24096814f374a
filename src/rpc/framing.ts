/**
 * NDJSON framing: one JSON object per line. The reader is written for an
 * untrusted writer: it caps each line and the total it will read, and it
 * reports a malformed line instead of throwing, so the caller can fail one
 * run and keep the host healthy. On the host, lines too big to parse on the
 * shared event loop go to a {@link BigLineParser} (`big_frames.ts`), and the
 * reader gives the loop a turn every {@link READ_SLICE_MS}.
 *
 * @module
 */

import { nextTurn } from "../loop.ts";
import { MAX_VALUE_DEPTH } from "./codec.ts";
import { LineSplitter, type RawLine } from "./line_splitter.ts";

export { LineSplitter, type RawLine } from "./line_splitter.ts";

/**
 * The deepest a frame's JSON may nest. V8's `JSON.parse` slows down with
 * depth (measured here: 15 ms at 5,000 levels, 1.3 s for a 1 MB line of
 * 500,000), so a line nested past this is refused before it is parsed. No
 * honest frame comes near it: a value nests at most `MAX_VALUE_DEPTH` levels,
 * a tagged Map costs three levels of JSON per level of value, and the
 * envelope a few more.
 */
export const MAX_FRAME_NESTING = 3 * MAX_VALUE_DEPTH + 16;

/** Why the reader stopped early. */
export type FrameFault =
  | { kind: "frame_too_large"; limit: number }
  | { kind: "frame_too_deep"; limit: number }
  | { kind: "output_too_large"; limit: number }
  | { kind: "malformed"; excerpt: string }
  | { kind: "unreadable"; reason: string };

/** A parsed big line, or why it is refused. */
export type BigLineResult =
  | { ok: true; frame: unknown; chars: number }
  | { ok: false; fault: FrameFault };

/**
 * Parses lines over `threshold` bytes elsewhere (the host uses a Worker:
 * `big_frames.ts`), with the same checks and faults as the main path.
 */
export interface BigLineParser {
  readonly threshold: number;
  /** Takes the line's bytes (their buffers may be transferred) and parses them. */
  parse(parts: Uint8Array[]): Promise<BigLineResult>;
}

/** Options for {@link readFrames}. */
export interface ReadFramesOptions {
  /** The longest line accepted, in bytes (without its newline). */
  maxFrameBytes: number;
  /** The most bytes read in all; past it the reader stops. */
  maxTotalBytes: number;
  /** Called for each parsed frame, in order. */
  onFrame(frame: unknown, bytes: number): void;
  /** Called once when the stream breaks a rule; reading then stops. */
  onFault(fault: FrameFault): void;
  /** Where lines too big for the main thread go; without it every line is parsed here. */
  bigLines?: BigLineParser;
  /**
   * Gives the event loop a turn after this many ms of reading without one.
   * A pipe that always has data ready resolves each read at once, so without
   * it a flood is read in one stretch (60 MB held the host 250 ms here). The
   * host sets it ({@link READ_SLICE_MS}); a child's loop is its own.
   */
  sliceMs?: number;
}

/**
 * How long the host reads a child's output before it lets other work run:
 * far under the 50 ms a tenant may hold the shared event loop, and a
 * setTimeout per 5 ms of work costs reading little.
 */
export const READ_SLICE_MS = 5;

/** Something that reads bytes into a buffer, like `Deno.stdin`. */
export interface ByteReader {
  read(buffer: Uint8Array): Promise<number | null>;
}

/** Bytes from a stream, or from a reader into one reused buffer. */
async function* chunks(
  source: ReadableStream<Uint8Array> | ByteReader,
): AsyncGenerator<Uint8Array> {
  // Not `instanceof ReadableStream`: touching that global loads Deno's streams (about 5 ms).
  if (!("getReader" in source)) {
    const buffer = new Uint8Array(64 * 1024);
    for (let n; (n = await source.read(buffer)) !== null;) yield buffer.subarray(0, n);
    return;
  }
  const reader = source.getReader();
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * Reads NDJSON frames from `source` until it ends or breaks a rule. Empty
 * lines are skipped. Resolves when reading stops; never rejects for bad
 * input (that goes to `onFault`). A {@link ByteReader} is read into one
 * reused buffer; the child's guest reads its stdin that way, because
 * `Deno.stdin.readable` costs about 6 ms to set up in every child.
 */
export async function readFrames(
  source: ReadableStream<Uint8Array> | ByteReader,
  options: ReadFramesOptions,
): Promise<void> {
  const big = options.bigLines;
  const splitter = new LineSplitter(options.maxFrameBytes, big?.threshold ?? Infinity);
  let total = 0;
  const sliceMs = options.sliceMs ?? Infinity;
  // Work done since the loop last had a turn. Only synchronous work counts: time spent waiting
  // for the next chunk (the child thinking) or for the big-line parser is the loop's own, and
  // counting it would make every chunk of a quiet run pay a timer hop.
  let busy = 0;
  let since = 0;
  try {
    for await (const value of chunks(source)) {
      if (busy > sliceMs) {
        await nextTurn();
        busy = 0;
      }
      since = performance.now();
      total += value.length;
      if (total > options.maxTotalBytes) {
        options.onFault({ kind: "output_too_large", limit: options.maxTotalBytes });
        return;
      }
      let lines: (string | RawLine)[];
      try {
        lines = splitter.pushLines(value);
      } catch {
        options.onFault({ kind: "frame_too_large", limit: options.maxFrameBytes });
        return;
      }
      for (const line of lines) {
        if (typeof line !== "string") {
          // Only a big-line parser's threshold makes raw lines. Awaited here, so frames stay in order.
          busy += performance.now() - since;
          const parsed = await big!.parse(line.parts);
          since = performance.now();
          if (!parsed.ok) {
            options.onFault(parsed.fault);
            return;
          }
          options.onFrame(parsed.frame, parsed.chars);
          continue;
        }
        if (line.length === 0 || line === "\r") continue;
        if (nestsDeeperThan(line, MAX_FRAME_NESTING)) {
          options.onFault({ kind: "frame_too_deep", limit: MAX_FRAME_NESTING });
          return;
        }
        let frame: unknown;
        try {
          frame = JSON.parse(line);
        } catch {
          options.onFault({ kind: "malformed", excerpt: line.slice(0, 120) });
          return;
        }
        options.onFrame(frame, line.length);
      }
      busy += performance.now() - since;
    }
  } catch {
    // The stream broke (the process died): the caller learns from its exit.
  }
}

/**
 * True when the JSON text `text` nests arrays and objects more than `max`
 * deep. One pass over the characters, skipping strings; malformed text is
 * left for `JSON.parse` to refuse.
 *
 * @example
 * ```ts
 * import { nestsDeeperThan } from "./framing.ts";
 * console.assert(!nestsDeeperThan('{"a":[[1]],"b":"[[[["}', 3));
 * console.assert(nestsDeeperThan("[[[[1]]]]", 3));
 * ```
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  // Each level opens with a character of its own: a shorter text cannot nest that deep.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // A backslash: the next character is escaped.
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Serializes writes of whole frames to a byte sink, so concurrent senders
 * never interleave partial lines. Frames sent while a write is in flight
 * (or in the same microtask burst) go out together in the next write: a
 * thousand calls under `Promise.all` cost a few writes, not a thousand.
 */
export class FrameWriter {
  /** Frames not yet written, each ended by a newline (a string: no array methods a script could replace). */
  #pending = "";
  /** The write that will carry {@link #pending}, once scheduled. */
  #batch: Promise<void> | undefined;
  /** The write in flight (or the last one). */
  #busy: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #encoder = new TextEncoder();
  readonly #write: (bytes: Uint8Array) => Promise<unknown>;

  constructor(write: (bytes: Uint8Array) => Promise<unknown>) {
    this.#write = write;
  }

  /** Queues one frame (a JSON text without newline); resolves once it is written. */
  send(json: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#pending += json + "\n";
    this.#batch ??= this.#busy.then(() => this.#writeBatch());
    return this.#batch;
  }

  #writeBatch(): Promise<void> {
    this.#batch = undefined;
    const text = this.#pending;
    this.#pending = "";
    if (this.#closed || text === "") return Promise.resolve();
    const bytes = this.#encoder.encode(text);
    this.#busy = Promise.resolve()
      .then(() => this.#write(bytes))
      .then(
        () => {},
        () => {
          this.#closed = true;
        },
      );
    return this.#busy;
  }

  /** Resolves when every queued frame is written. */
  flush(): Promise<void> {
    return this.#batch ?? this.#busy;
  }
}
