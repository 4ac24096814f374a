/**
 * Live events of the executions a runtime runs in this process: console
 * lines, call-log changes, pauses and ends. The HTTP service streams them
 * as server-sent events; a listener that throws is ignored, and nothing is
 * built when nobody listens.
 *
 * @module
 */
import type { ErrorInfo } from "../../errors.ts";
import type { CallEntry } from "../../store/calls.ts";
import type { ExecutionStatus } from "../../store/executions.ts";
import { currentExecution } from "./current.ts";
import type { CallRecord, Diagnostic, LogEntry, PendingAction } from "./types.ts";

/** One thing that happened to an execution. */
export type ExecutionEvent =
  | { type: "started"; executionId: string; namespace: string }
  | { type: "log"; executionId: string; entry: LogEntry }
  | { type: "call"; executionId: string; call: CallRecord }
  | { type: "paused"; executionId: string; pending: PendingAction[] }
  /** A decision (approve, reject, resolve) claimed a paused execution: its code runs again. */
  | { type: "resumed"; executionId: string; namespace: string }
  | {
    type: "done";
    executionId: string;
    status: Exclude<ExecutionStatus, "running" | "paused">;
    result?: unknown;
    error?: ErrorInfo;
    /** A type check still runs beside it: a `diagnostics` event of the execution follows. */
    typecheck?: "pending";
  }
  /** A type check's findings, after `done` said `typecheck: "pending"` or the result did. */
  | { type: "diagnostics"; executionId: string; diagnostics: Diagnostic[] };

/** Receives events; must not block (it runs on the execution's path). */
export type ExecutionListener = (event: ExecutionEvent) => void;

/** Fan-out of execution events. */
export class EventHub {
  readonly #listeners = new Set<ExecutionListener>();
  /** Executions with a type check under way beside their run ({@link checking}). */
  readonly #checking = new Map<string, () => boolean>();
  /** Executions whose `done` said `typecheck: "pending"`: a `diagnostics` event is owed. */
  readonly #owed = new Set<string>();
  /** Clients listening for an execution now (an open event stream), by execution id. */
  readonly #watchers = new Map<string, number>();

  /**
   * Counts a client as listening for `executionId` until the returned function is called (once
   * counts; calling it again does nothing). Pending calls report it as `clientConnected`.
   */
  watch(executionId: string): () => void {
    const id = String(executionId);
    this.#watchers.set(id, (this.#watchers.get(id) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (this.#watchers.get(id) ?? 1) - 1;
      if (left > 0) this.#watchers.set(id, left);
      else this.#watchers.delete(id);
    };
  }

  /** Whether a client listens for `executionId` now (see {@link watch}). */
  watching(executionId: string): boolean {
    return this.#watchers.has(executionId);
  }

  /** True when someone listens: emitters skip building events otherwise. */
  get active(): boolean {
    return this.#listeners.size > 0;
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: ExecutionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * A type check runs beside `executionId` until {@link checked}: a `done` event emitted while
   * `pending()` says so carries `typecheck: "pending"`.
   */
  checking(executionId: string, pending: () => boolean): void {
    this.#checking.set(executionId, pending);
  }

  /**
   * The check of `executionId` ended with `diagnostics`: listeners get a `diagnostics` event
   * when the result went without them (`late`) or its `done` event promised one.
   */
  checked(executionId: string, diagnostics: Diagnostic[], late: boolean): void {
    this.#checking.delete(executionId);
    const owed = this.#owed.delete(executionId);
    if ((late || owed) && this.active) {
      this.emit({ type: "diagnostics", executionId, diagnostics });
    }
  }

  /** Tells every listener, each on behalf of the event's execution ({@link currentExecution}). */
  emit(event: ExecutionEvent): void {
    if (event.type === "done" && this.#checking.get(event.executionId)?.()) {
      event = { ...event, typecheck: "pending" };
      this.#owed.add(event.executionId);
    }
    currentExecution.run(event.executionId, () => {
      for (const l of this.#listeners) {
        try {
          l(event);
        } catch {
          // A listener's failure is its own.
        }
      }
    });
  }

  /** A call-log entry changed. */
  call(entry: CallEntry, toRecord: (e: CallEntry) => CallRecord): void {
    if (this.active) {
      this.emit({ type: "call", executionId: entry.executionId, call: toRecord(entry) });
    }
  }
}

/** A wait for an execution to pause or end, from {@link watchMoves}; dispose of it when done. */
export interface MoveWatch extends Disposable {
  /**
   * Resolves at the execution's next pause (when watched) or end, after `ms`, or on `signal`'s
   * abort, whichever is first. A move that came since the last call resolves it at once.
   */
  next(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Watches `executionId` through `subscribe` (a runtime's) for its end, and its pauses when
 * `pauses` is set, so a caller that re-reads the store between waits misses no move.
 */
export function watchMoves(
  subscribe: (listener: ExecutionListener) => () => void,
  executionId: string,
  pauses: boolean,
): MoveWatch {
  let moved = false;
  let wake = () => {};
  const off = subscribe((e) => {
    if (e.executionId !== executionId) return;
    if (e.type === "done" || (pauses && e.type === "paused")) {
      moved = true;
      wake();
    }
  });
  return {
    next(ms, signal) {
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          moved = false;
          wake = () => {};
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, ms));
        if (moved || signal?.aborted) return done();
        wake = done;
        signal?.addEventListener("abort", done, { once: true });
      });
    },
    [Symbol.dispose]: off,
  };
}
