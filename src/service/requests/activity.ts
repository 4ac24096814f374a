/**
 * The namespace-wide activity feed behind `GET /v1/events`: one small event
 * per execution state change (started, paused, resumed, completed, error,
 * rejected, rolled back, deleted), numbered across the process, so an
 * operator's screen can follow every run of a namespace over one stream.
 *
 * It is built from the runtime's execution events (the same ones the
 * per-execution event logs keep) and holds little: the last
 * {@link DEFAULT_ACTIVITY_MAX_EVENTS} changes for clients that reconnect
 * with `Last-Event-ID`, and the namespace and pause state of at most
 * {@link DEFAULT_ACTIVITY_MAX_TRACKED} unfinished executions. An execution
 * it does not track (resumed after a restart, or let go past that bound) is
 * looked up in the store once, its events held in order until the answer.
 *
 * @module
 */
import type { ExecutionEvent, Runtime } from "../../engine/mod.ts";

/** Changes kept for reconnecting clients: a few minutes of a busy service, a few hundred KiB. */
export const DEFAULT_ACTIVITY_MAX_EVENTS = 1_000;
/** Unfinished executions whose namespace is remembered (about 200 bytes each). */
export const DEFAULT_ACTIVITY_MAX_TRACKED = 10_000;
/** An error message in a change is cut here: the feed is a list, not the record. */
const MAX_MESSAGE_CHARS = 300;

/** What happened to an execution. */
export type ActivityChange =
  | "started"
  | "paused"
  | "resumed"
  | "completed"
  | "error"
  | "rejected"
  | "rolled_back"
  | "deleted";

/** One state change, as `GET /v1/events` sends it (`event:` is `change`). */
export interface ActivityEvent {
  /** Numbered across the process, one after another (from `firstId`). */
  id: number;
  change: ActivityChange;
  executionId: string;
  namespace: string;
  /** The status after the change (absent for `deleted`). */
  status?: "running" | "paused" | "completed" | "error" | "rejected" | "rolled_back";
  /** When it happened, ms since the epoch. */
  at: number;
  /** `paused`: how many calls wait. */
  pending?: number;
  /** `error` and `rejected`: why, cut short. */
  error?: { code: string; message: string };
}

/** Bounds of the feed. */
export interface ActivityFeedOptions {
  /** Changes kept (default {@link DEFAULT_ACTIVITY_MAX_EVENTS}). */
  maxEvents?: number;
  /** Unfinished executions tracked (default {@link DEFAULT_ACTIVITY_MAX_TRACKED}). */
  maxTracked?: number;
  /**
   * The first change's id (default 1). The service starts from its start time in microseconds,
   * so a client reconnecting with an id from before a restart is told to `reset`, never
   * handed the new process's changes as if it had seen the ones before them.
   */
  firstId?: number;
}

type Tracked = { namespace: string; paused: boolean };

/** Follows a runtime's executions and numbers their state changes. */
export class ActivityFeed {
  readonly #runtime: Runtime;
  readonly #events: ActivityEvent[] = [];
  readonly #tracked = new Map<string, Tracked>();
  /** Executions being looked up, with the events that arrived meanwhile. */
  readonly #waiting = new Map<string, ExecutionEvent[]>();
  readonly #maxEvents: number;
  readonly #maxTracked: number;
  readonly #off: () => void;
  readonly #listeners = new Set<(e: ActivityEvent) => void>();
  #nextId: number;
  #wake = Promise.withResolvers<void>();
  #closed = false;

  constructor(runtime: Runtime, options: ActivityFeedOptions = {}) {
    this.#runtime = runtime;
    this.#maxEvents = options.maxEvents ?? DEFAULT_ACTIVITY_MAX_EVENTS;
    this.#maxTracked = options.maxTracked ?? DEFAULT_ACTIVITY_MAX_TRACKED;
    this.#nextId = options.firstId ?? 1;
    this.#off = runtime.subscribe((e) => this.#receive(e));
  }

  /** True once closed: streams end. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The id of the newest change (`firstId - 1` before any). */
  get lastId(): number {
    return this.#nextId - 1;
  }

  /** The id of the oldest change still kept (`lastId + 1` when none is). */
  get firstId(): number {
    return this.#events[0]?.id ?? this.#nextId;
  }

  /** Kept changes after `id`, oldest first. */
  after(id: number): ActivityEvent[] {
    const i = this.#events.findIndex((e) => e.id > id);
    return i === -1 ? [] : this.#events.slice(i);
  }

  /** Resolves at the next change (or when the feed closes). */
  changed(): Promise<void> {
    return this.#wake.promise;
  }

  /**
   * Calls `listener` with every change from now on, as it is numbered (the service's run log
   * reads them here); returns what stops it. A throwing listener does not stop the feed.
   */
  onChange(listener: (e: ActivityEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Records that an execution was deleted (the runtime emits nothing for it). */
  deleted(executionId: string, namespace: string): void {
    this.#tracked.delete(executionId);
    this.#push({ change: "deleted", executionId, namespace });
  }

  /** Stops following the runtime and wakes every stream so it can end. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#off();
    this.#notify();
  }

  #receive(e: ExecutionEvent): void {
    if (e.type === "diagnostics") return;
    if (e.type === "started") {
      this.#track(e.executionId, { namespace: e.namespace, paused: false });
      const { executionId, namespace } = e;
      this.#push({ change: "started", executionId, namespace, status: "running" });
      return;
    }
    const waiting = this.#waiting.get(e.executionId);
    if (waiting) {
      waiting.push(e);
      return;
    }
    const t = this.#tracked.get(e.executionId);
    if (t) this.#apply(e, t);
    else this.#lookUp(e);
  }

  /** An execution seen without its start: its namespace comes from the store, once. */
  #lookUp(e: ExecutionEvent): void {
    const held = [e];
    this.#waiting.set(e.executionId, held);
    this.#runtime.execution(e.executionId).then(
      (d) => d,
      () => undefined,
    ).then((d) => {
      this.#waiting.delete(e.executionId);
      if (!d || this.#closed) return;
      // Not paused: whatever event woke it up here means it runs again.
      const t: Tracked = { namespace: d.namespace, paused: true };
      this.#track(e.executionId, t);
      for (const x of held) this.#apply(x, t);
    });
  }

  #apply(e: ExecutionEvent, t: Tracked): void {
    const base = { executionId: e.executionId, namespace: t.namespace };
    if (e.type === "paused") {
      t.paused = true;
      this.#push({ ...base, change: "paused", status: "paused", pending: e.pending.length });
    } else if (e.type === "done") {
      this.#tracked.delete(e.executionId);
      const out: Omit<ActivityEvent, "id" | "at"> = { ...base, change: e.status, status: e.status };
      if (e.error) {
        out.error = { code: e.error.code, message: e.error.message.slice(0, MAX_MESSAGE_CHARS) };
      }
      this.#push(out);
    } else if (t.paused) {
      // The first call or line after a pause: a decision let it go on.
      t.paused = false;
      this.#push({ ...base, change: "resumed", status: "running" });
    }
  }

  #track(id: string, t: Tracked): void {
    this.#tracked.delete(id);
    this.#tracked.set(id, t);
    // The longest-known go first; an event of one let go is looked up again.
    while (this.#tracked.size > this.#maxTracked) {
      this.#tracked.delete(this.#tracked.keys().next().value!);
    }
  }

  #push(e: Omit<ActivityEvent, "id" | "at">): void {
    if (this.#closed) return;
    const event: ActivityEvent = { id: this.#nextId++, ...e, at: Date.now() };
    this.#events.push(event);
    if (this.#events.length > this.#maxEvents) {
      this.#events.splice(0, this.#events.length - this.#maxEvents);
    }
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own.
      }
    }
    this.#notify();
  }

  #notify(): void {
    this.#wake.resolve();
    this.#wake = Promise.withResolvers<void>();
  }
}
