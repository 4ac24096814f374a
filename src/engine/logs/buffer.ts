/**
 * Console output of one execution: kept up to `maxConsoleBytes`, returned
 * inline up to `maxInlineConsoleBytes` (the line that crosses it cut with a
 * marker), the rest dropped and counted. Each
 * line is redacted once, as it arrives, so the inline logs, the stored lines,
 * `readLogs` and live events all carry the same redacted text; the byte
 * counts stay those of what the child sent.
 *
 * @module
 */
import type { LogLevel, LogParams } from "../../sandbox/protocol.ts";
import { type Redact, redactCredentials } from "./redact.ts";

/** One console line. */
export interface LogEntry {
  /** The console method that wrote it (`console.trace` counts as `debug`). */
  level: LogLevel;
  /** The arguments joined by spaces: strings as they are, other values inspected. */
  message: string;
  /** Milliseconds since the execution started. */
  atMs: number;
}

const LEVELS: ReadonlySet<string> = new Set(["log", "info", "warn", "error", "debug"]);
const encoder = new TextEncoder();
/**
 * The least room worth showing part of a line in: the marker takes about 80 bytes, and a
 * line's first couple of hundred characters say what it is.
 */
export const MIN_CUT_LINE_BYTES = 256;

/**
 * `message` cut to at most `room` UTF-8 bytes with a marker saying so (between characters).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutLine } from "./buffer.ts";
 * const cut = cutLine("x".repeat(1_000), 300);
 * assert.ok(cut.endsWith("[cut: 1000 bytes in all; readLogs has the whole line]"));
 * assert.ok(new TextEncoder().encode(cut).length <= 300);
 * ```
 */
export function cutLine(message: string, room: number): string {
  const bytes = encoder.encode(message);
  if (bytes.byteLength <= room) return message;
  const marker = `… [cut: ${bytes.byteLength} bytes in all; readLogs has the whole line]`;
  let end = Math.max(0, room - encoder.encode(marker).byteLength);
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end)) + marker;
}

/** Bounded console capture for one execution. */
export class LogBuffer {
  readonly entries: LogEntry[] = [];
  /** Bytes received from the child. */
  receivedBytes = 0;
  keptBytes = 0;
  inlineCount = 0;
  dropped = 0;
  #inlineBytes = 0;
  readonly #maxKept: number;
  readonly #maxInline: number;
  readonly #startedAt: number;

  readonly #onEntry?: (entry: LogEntry) => void;
  readonly #redact: Redact;

  /**
   * `redact` defaults to the built-in credential shapes; a runtime passes its own, which also
   * knows the secret values it holds.
   */
  constructor(
    maxKeptBytes: number,
    maxInlineBytes: number,
    startedAt: number,
    onEntry?: (entry: LogEntry) => void,
    redact: Redact = redactCredentials,
  ) {
    this.#maxKept = maxKeptBytes;
    this.#maxInline = maxInlineBytes;
    this.#startedAt = startedAt;
    this.#onEntry = onEntry;
    this.#redact = redact;
  }

  /** Takes one `log` notification from the (untrusted) child. */
  add(params: unknown): void {
    const p = (params ?? {}) as Partial<LogParams>;
    const level: LogLevel = LEVELS.has(p.level as string) ? p.level as LogLevel : "log";
    const message = typeof p.message === "string" ? p.message : String(p.message);
    const bytes = encoder.encode(message).length;
    this.receivedBytes += bytes;
    if (this.keptBytes + bytes > this.#maxKept) {
      this.dropped++;
      return;
    }
    this.keptBytes += bytes;
    const entry: LogEntry = {
      level,
      message: this.#redact(message),
      atMs: Math.round(performance.now() - this.#startedAt),
    };
    this.entries.push(entry);
    this.#onEntry?.(entry);
    if (
      this.inlineCount === this.entries.length - 1 && this.#inlineBytes + bytes <= this.#maxInline
    ) {
      this.#inlineBytes += bytes;
      this.inlineCount++;
    }
  }

  /**
   * The entries returned inline: the lines that fit whole, then the first line that did not,
   * cut to the room left with a marker (it is kept whole for `readLogs`), unless too little
   * room is left to show anything of it.
   */
  inline(): LogEntry[] {
    const out = this.entries.slice(0, this.inlineCount);
    const next = this.entries[this.inlineCount];
    const room = this.#maxInline - this.#inlineBytes;
    if (next && room >= MIN_CUT_LINE_BYTES) {
      out.push({ ...next, message: cutLine(next.message, room) });
    }
    return out;
  }

  /** True when anything was dropped or left out of the inline part. */
  get truncated(): boolean {
    return this.dropped > 0 || this.inlineCount < this.entries.length;
  }
}
