/**
 * Splitting a byte stream into lines, for NDJSON framing (`framing.ts`).
 *
 * @module
 */
import { concatBytes } from "../bytes.ts";

const NEWLINE = 0x0a;

/** A line longer than the splitter's raw threshold: its bytes, not yet decoded. */
export interface RawLine {
  /** The line's bytes in order; each part owns its whole buffer (it can be transferred). */
  parts: Uint8Array[];
  bytes: number;
}

/**
 * Splits bytes into lines with a cap on line length. Push chunks in; get
 * back complete lines. A line over the cap throws a `RangeError` as soon as
 * it is known to be too long, without waiting for its end. Linear: each
 * byte is searched natively (`indexOf`) and copied at most twice.
 *
 * @example
 * ```ts
 * import { LineSplitter } from "./line_splitter.ts";
 * const s = new LineSplitter(1024);
 * const lines = s.push(new TextEncoder().encode('{"a":1}\n{"b"'));
 * console.assert(lines.length === 1);
 * ```
 */
export class LineSplitter {
  /** Full blocks of the line not yet ended, then {@link #block} filled up to {@link #used}. */
  #parts: Uint8Array[] = [];
  #block: Uint8Array | undefined;
  #used = 0;
  #partBytes = 0;
  readonly #maxLineBytes: number;
  readonly #rawOver: number;
  readonly #decoder = new TextDecoder();

  /** Lines over `rawOver` bytes come out of {@link pushLines} as {@link RawLine}s. */
  constructor(maxLineBytes: number, rawOver = Infinity) {
    this.#maxLineBytes = maxLineBytes;
    this.#rawOver = rawOver;
  }

  /** Adds a chunk; returns the lines it completed, decoded. */
  push(chunk: Uint8Array): string[] {
    return this.pushLines(chunk).map((line) =>
      typeof line === "string" ? line : this.#decoder.decode(concatBytes(line.parts, line.bytes))
    );
  }

  /** Adds a chunk; returns the lines it completed, those over the raw threshold undecoded. */
  pushLines(chunk: Uint8Array): (string | RawLine)[] {
    const lines: (string | RawLine)[] = [];
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) {
        const rest = chunk.subarray(start);
        if (this.#partBytes + rest.length > this.#maxLineBytes) {
          throw new RangeError(`A frame is longer than ${this.#maxLineBytes} bytes`);
        }
        this.#hold(rest);
        break;
      }
      const piece = chunk.subarray(start, end);
      const bytes = this.#partBytes + piece.length;
      if (bytes > this.#maxLineBytes) {
        throw new RangeError(`A frame is longer than ${this.#maxLineBytes} bytes`);
      }
      if (this.#partBytes === 0 && bytes <= this.#rawOver) {
        lines.push(this.#decoder.decode(piece));
      } else {
        const parts = this.#parts;
        if (this.#block) parts.push(this.#block.subarray(0, this.#used));
        if (bytes > this.#rawOver) {
          parts.push(piece.slice());
          lines.push({ parts, bytes });
        } else {
          parts.push(piece);
          lines.push(this.#decoder.decode(concatBytes(parts, bytes)));
        }
        this.#parts = [];
        this.#block = undefined;
        this.#used = 0;
        this.#partBytes = 0;
      }
      start = end + 1;
    }
    return lines;
  }

  /**
   * Copies the start of a line into blocks that grow with the line (up to
   * {@link MAX_BLOCK_BYTES}): a short partial line costs one exact copy, a
   * long one a few dozen blocks rather than one per chunk.
   */
  #hold(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      if (!this.#block || this.#used === this.#block.length) {
        if (this.#block) this.#parts.push(this.#block);
        const size = Math.max(bytes.length - at, Math.min(MAX_BLOCK_BYTES, this.#partBytes));
        this.#block = new Uint8Array(size);
        this.#used = 0;
      }
      const n = Math.min(bytes.length - at, this.#block.length - this.#used);
      this.#block.set(bytes.subarray(at, at + n), this.#used);
      this.#used += n;
      this.#partBytes += n;
      at += n;
    }
  }

  /** Bytes held for a line not yet ended. */
  get pendingBytes(): number {
    return this.#partBytes;
  }
}

/**
 * The largest block a long line is held in. Each block of a big line is
 * one transfer to the parsing Worker; at 4 MiB a 64 MiB line is about 30
 * blocks (one per 64 KiB chunk took 20-50 ms to post here).
 */
const MAX_BLOCK_BYTES = 4 * 1024 * 1024;
