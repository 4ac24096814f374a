/**
 * {@link RunProgress}: `notifications/progress` for a tool call that carries
 * `_meta.progressToken`, while the runs it started go on: one on each tool
 * call a script makes (throttled), a heartbeat when nothing else was said,
 * and one on each pause and resume.
 *
 * @module
 */
import type { Runtime } from "../../engine/runtime/types.ts";
import type { ExecutionEvent } from "../../engine/execution/events.ts";

/**
 * The least time between two notifications (ms): at most four a second, enough for a
 * client's spinner and never a flood when a script makes thousands of calls.
 */
export const PROGRESS_MIN_INTERVAL_MS = 250;
/**
 * A notification at least this often (ms) while a run goes on quietly or waits: a client that
 * resets its request timeout on progress keeps waiting, and a person sees it is alive.
 */
export const PROGRESS_HEARTBEAT_MS = 5_000;

/** What a tool handler's `extra` offers for notifications. */
export interface ProgressChannel {
  /** The tool call's `_meta`, where the progress token is. */
  _meta?: { progressToken?: string | number; [key: string]: unknown };
  /** Sends a notification related to the tool call. */
  sendNotification(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message?: string };
  }): Promise<void>;
}

/** Progress notifications of one tool call; dispose it when the call answers. */
export class RunProgress implements Disposable {
  readonly #token: string | number;
  readonly #channel: ProgressChannel;
  readonly #followed = new Set<string>();
  readonly #seen = new Set<string>();
  readonly #stop: () => void;
  readonly #heartbeat: ReturnType<typeof setInterval>;
  #sent = 0;
  #lastAt = 0;
  #last = "";
  #paused = false;
  #startedAt = Date.now();
  #later?: ReturnType<typeof setTimeout>;
  #queued?: string;
  #queuedImportant = false;

  private constructor(runtime: Runtime, token: string | number, channel: ProgressChannel) {
    this.#token = token;
    this.#channel = channel;
    this.#stop = runtime.subscribe((e) => this.#onEvent(e));
    this.#heartbeat = setInterval(() => {
      if (Date.now() - this.#lastAt >= PROGRESS_HEARTBEAT_MS) this.#say(this.#summary());
    }, PROGRESS_HEARTBEAT_MS);
  }

  /** Progress for a tool call, or `undefined` when the call asked for none (no token). */
  static of(runtime: Runtime, channel: ProgressChannel): RunProgress | undefined {
    const token = channel._meta?.progressToken;
    if (typeof token !== "string" && typeof token !== "number") return undefined;
    return new RunProgress(runtime, token, channel);
  }

  /** Reports on `executionId` from now on (a tool call may start several runs). */
  follow(executionId: string): void {
    this.#followed.add(executionId);
  }

  /** Says that the run waits for decisions (`waiting`) or goes on again. */
  paused(waiting: string | false): void {
    if (waiting === false) {
      if (!this.#paused) return;
      this.#paused = false;
      this.#say(`resumed; ${this.#summary()}`, true);
    } else {
      this.#paused = true;
      this.#say(`paused: ${waiting}`, true);
    }
  }

  #summary(): string {
    const n = this.#seen.size;
    const calls = `${n} call${n === 1 ? "" : "s"}${this.#last ? `, last: ${this.#last}` : ""}`;
    const secs = Math.round((Date.now() - this.#startedAt) / 1000);
    return `${this.#paused ? "paused" : "running"} ${secs}s: ${calls}`;
  }

  #onEvent(e: ExecutionEvent): void {
    if (!this.#followed.has(e.executionId)) return;
    if (e.type === "call" && e.call.kind === "tool") {
      const key = `${e.executionId}#${e.call.seq}`;
      if (this.#paused && e.call.state !== "pending") this.paused(false);
      if (this.#seen.has(key)) return;
      this.#seen.add(key);
      this.#last = `${e.call.connector}.${e.call.tool}`;
      this.#say(this.#summary());
    } else if (e.type === "paused") {
      const what = e.pending.map((p) => `${p.connector}.${p.tool} (#${p.seq})`).join(", ");
      this.paused(`waiting for a decision on ${what}`);
    }
  }

  /**
   * Sends `message` now, or at the end of the current interval; a later message replaces a
   * queued one unless that one was `important` (a pause or resume is never dropped for a count).
   */
  #say(message: string, important = false): void {
    const wait = this.#lastAt + PROGRESS_MIN_INTERVAL_MS - Date.now();
    if (wait <= 0 && this.#later === undefined) return this.#send(message);
    if (this.#later !== undefined && !important && this.#queuedImportant) return;
    this.#queued = message;
    this.#queuedImportant = important;
    this.#later ??= setTimeout(() => {
      this.#later = undefined;
      const queued = this.#queued;
      this.#queued = undefined;
      if (queued !== undefined) this.#send(queued);
    }, Math.max(0, wait));
  }

  #send(message: string): void {
    this.#lastAt = Date.now();
    this.#channel.sendNotification({
      method: "notifications/progress",
      params: { progressToken: this.#token, progress: ++this.#sent, message },
    }).catch(() => {/* the client went away: the run goes on without it */});
  }

  /** Stops listening and sending; a pause or resume still queued goes out first. */
  [Symbol.dispose](): void {
    this.#stop();
    clearInterval(this.#heartbeat);
    if (this.#later !== undefined) clearTimeout(this.#later);
    this.#later = undefined;
    if (this.#queued !== undefined && this.#queuedImportant) this.#send(this.#queued);
    this.#queued = undefined;
  }
}
