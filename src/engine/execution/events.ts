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
import type { CallRecord, LogEntry, PendingAction } from "./types.ts";

/** One thing that happened to an execution. */
export type ExecutionEvent =
  | { type: "started"; executionId: string; namespace: string }
  | { type: "log"; executionId: string; entry: LogEntry }
  | { type: "call"; executionId: string; call: CallRecord }
  | { type: "paused"; executionId: string; pending: PendingAction[] }
  | {
    type: "done";
    executionId: string;
    status: Exclude<ExecutionStatus, "running" | "paused">;
    result?: unknown;
    error?: ErrorInfo;
  };

/** Receives events; must not block (it runs on the execution's path). */
export type ExecutionListener = (event: ExecutionEvent) => void;

/** Fan-out of execution events. */
export class EventHub {
  readonly #listeners = new Set<ExecutionListener>();

  /** True when someone listens: emitters skip building events otherwise. */
  get active(): boolean {
    return this.#listeners.size > 0;
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: ExecutionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: ExecutionEvent): void {
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /** A call-log entry changed. */
  call(entry: CallEntry, toRecord: (e: CallEntry) => CallRecord): void {
    if (this.active) {
      this.emit({ type: "call", executionId: entry.executionId, call: toRecord(entry) });
    }
  }
}
