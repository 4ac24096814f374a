/**
 * Console output of one execution: kept up to `maxConsoleBytes`, returned
 * inline up to `maxInlineConsoleBytes`, the rest dropped and counted.
 *
 * @module
 */
import type { LogLevel, LogParams } from "../sandbox/protocol.ts";
import type { LogEntry } from "./types.ts";

const LEVELS: ReadonlySet<string> = new Set(["log", "info", "warn", "error", "debug"]);
const encoder = new TextEncoder();

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

  constructor(
    maxKeptBytes: number,
    maxInlineBytes: number,
    startedAt: number,
    onEntry?: (entry: LogEntry) => void,
  ) {
    this.#maxKept = maxKeptBytes;
    this.#maxInline = maxInlineBytes;
    this.#startedAt = startedAt;
    this.#onEntry = onEntry;
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
      message,
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

  /** The entries returned inline. */
  inline(): LogEntry[] {
    return this.entries.slice(0, this.inlineCount);
  }

  /** True when anything was dropped or left out of the inline part. */
  get truncated(): boolean {
    return this.dropped > 0 || this.inlineCount < this.entries.length;
  }
}
