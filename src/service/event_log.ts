/**
 * Per-execution event logs for server-sent events. Every event a runtime
 * emits in this process is numbered (1, 2, …) and kept, bounded, while the
 * execution lives and for a while after it ends, so a client that drops
 * its stream reconnects with `Last-Event-ID` and misses nothing.
 *
 * @module
 */
import type { ExecutionEvent, Runtime } from "../engine/mod.ts";
import { encodeValue } from "../rpc/codec.ts";

/** One numbered event, ready to send. */
export interface LoggedEvent {
  id: number;
  type: string;
  data: string;
}

/** The events of one execution. */
export interface EventRecord {
  readonly events: LoggedEvent[];
  /** Events dropped past the bound (oldest log lines go first; calls and ends are kept). */
  dropped: number;
  /** `done` was seen: no more events will come. */
  ended: boolean;
  endedAt?: number;
  /** Resolves the next time an event arrives (or the log closes). */
  changed(): Promise<void>;
}

/** Bounds of the event logs. */
export interface EventLogOptions {
  /** Events kept per execution (default 5,000). */
  maxEvents?: number;
  /** How long an ended execution's events stay (default 5 minutes). */
  retainMs?: number;
}

class Record_ implements EventRecord {
  readonly events: LoggedEvent[] = [];
  dropped = 0;
  ended = false;
  endedAt?: number;
  nextId = 1;
  #wake = Promise.withResolvers<void>();

  changed(): Promise<void> {
    return this.#wake.promise;
  }

  notify(): void {
    this.#wake.resolve();
    this.#wake = Promise.withResolvers<void>();
  }
}

/** Keeps the event logs of a runtime's executions. */
export class EventLog {
  readonly #records = new Map<string, Record_>();
  readonly #maxEvents: number;
  readonly #retainMs: number;
  readonly #off: () => void;
  readonly #sweep: ReturnType<typeof setInterval>;
  #closed = false;

  constructor(runtime: Runtime, options: EventLogOptions = {}) {
    this.#maxEvents = options.maxEvents ?? 5_000;
    this.#retainMs = options.retainMs ?? 5 * 60_000;
    this.#off = runtime.subscribe((e) => this.#add(e));
    this.#sweep = setInterval(() => this.#forget(), Math.min(60_000, this.#retainMs));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The record of an execution this process ran recently, if any. */
  get(executionId: string): EventRecord | undefined {
    return this.#records.get(executionId);
  }

  #add(e: ExecutionEvent): void {
    let rec = this.#records.get(e.executionId);
    if (!rec) {
      // Only executions seen from their start (or resumed here) get a record.
      rec = new Record_();
      this.#records.set(e.executionId, rec);
    }
    const { executionId: _id, type, ...rest } = e;
    rec.events.push({ id: rec.nextId++, type, data: JSON.stringify(encodeValue(rest)) });
    if (rec.events.length > this.#maxEvents) {
      const i = rec.events.findIndex((x) => x.type === "log");
      rec.events.splice(i === -1 ? 0 : i, 1);
      rec.dropped++;
    }
    if (type === "done") {
      rec.ended = true;
      rec.endedAt = Date.now();
    } else if (rec.ended) {
      // A rollback after the end, or a new pass: the record is live again.
      rec.ended = false;
    }
    rec.notify();
  }

  #forget(): void {
    const before = Date.now() - this.#retainMs;
    for (const [id, rec] of this.#records) {
      if (rec.ended && (rec.endedAt ?? 0) < before) this.#records.delete(id);
    }
  }

  /** Stops listening and wakes every stream so it can end. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#off();
    clearInterval(this.#sweep);
    for (const rec of this.#records.values()) rec.notify();
  }
}
