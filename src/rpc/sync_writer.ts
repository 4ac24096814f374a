/**
 * Frames to a synchronous byte sink (the guest's stdout), for the side of the channel that makes
 * bursts of requests. Frames sent in one burst of microtasks go out together at its end, as
 * {@link FrameWriter}'s do; but once {@link SYNC_FLUSH_CHARS} are waiting they go out at once,
 * so the other side starts answering a thousand calls under `Promise.all` while the script is
 * still making them, instead of after it made the last.
 *
 * @module
 */

/** Characters of frames held before they are written without waiting for the burst's end. */
export const SYNC_FLUSH_CHARS = 16 * 1024;

// Captured when the module loads: the guest's user code may replace the globals later.
const enqueue = queueMicrotask;

/** Writes whole frames, in order, to a sink that writes every byte before it returns. */
export class SyncFrameWriter {
  #pending = "";
  #scheduled = false;
  #closed = false;
  readonly #encoder = new TextEncoder();
  readonly #write: (bytes: Uint8Array) => void;
  readonly #onError: (err: unknown) => void;
  readonly #flushAt: number;

  /**
   * `write` must write all of `bytes` or throw; after it throws once, nothing more is written
   * and `onError` hears of it (a throw inside {@link send} goes to the sender instead).
   */
  constructor(
    write: (bytes: Uint8Array) => void,
    onError: (err: unknown) => void,
    flushAt = SYNC_FLUSH_CHARS,
  ) {
    this.#write = write;
    this.#onError = onError;
    this.#flushAt = flushAt;
  }

  /** Queues one frame (a JSON text without newline): written now if enough are waiting. */
  send(json: string): void {
    if (this.#closed) return;
    this.#pending += json + "\n";
    if (this.#pending.length >= this.#flushAt) {
      this.#flush();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      enqueue(() => {
        this.#scheduled = false;
        try {
          this.#flush();
        } catch (err) {
          this.#onError(err);
        }
      });
    }
  }

  /** Writes every frame waiting. */
  #flush(): void {
    const text = this.#pending;
    this.#pending = "";
    if (this.#closed || text === "") return;
    try {
      this.#write(this.#encoder.encode(text));
    } catch (err) {
      this.#closed = true;
      throw err;
    }
  }
}
