/**
 * How the embedder is doing: calls and texts sent, failures (each counted, kept as the last
 * error and warned about), searches that fell back to words, and the pause after a failure
 * during which it is left alone.
 *
 * @module
 */
import { type ErrorInfo, toErrorInfo } from "../../errors.ts";

/** The counters `runtime.searchStatus()` shows. */
export interface EmbedCounts {
  /** Calls made to the embedding function (documents and queries). */
  embedCalls: number;
  /** Texts sent to it in all. */
  embeddedTexts: number;
  /** Calls that failed (error, timeout, unusable answer), or vectors that could not be stored. */
  failures: number;
  /** Searches ranked by words alone because the embedder failed or was being left alone. */
  lexicalFallbacks: number;
}

/** Counters, the last failure and the pause after it. */
export class EmbedHealth {
  readonly counts: EmbedCounts = {
    embedCalls: 0,
    embeddedTexts: 0,
    failures: 0,
    lexicalFallbacks: 0,
  };
  lastError: ErrorInfo | undefined;
  #pausedUntil = 0;
  readonly #cooldownMs: number;
  readonly #warn: (message: string) => void;

  constructor(cooldownMs: number, warn: (message: string) => void) {
    this.#cooldownMs = cooldownMs;
    this.#warn = warn;
  }

  /** Whether the embedder is being left alone after a failure. */
  paused(): boolean {
    return Date.now() < this.#pausedUntil;
  }

  /** Counts a call of `texts` texts. */
  called(texts: number): void {
    this.counts.embedCalls++;
    this.counts.embeddedTexts += texts;
  }

  /** Records a failure while `doing` something, warns, and pauses the embedder. */
  failed(err: unknown, doing: string): void {
    const info = toErrorInfo(err, "embedder_failed");
    this.counts.failures++;
    this.lastError = info;
    this.#pausedUntil = Date.now() + this.#cooldownMs;
    const retry = this.#cooldownMs > 0
      ? ` and tries the embedder again in ${Math.round(this.#cooldownMs / 1000)} s`
      : "";
    this.#warn(
      `search: ${doing} failed (${info.code}: ${info.message}); search ranks by words alone${retry}`,
    );
  }
}
