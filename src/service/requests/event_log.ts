/**
 * Per-execution event logs for server-sent events. Every event a runtime
 * emits in this process is numbered (1, 2, …) and kept, bounded, while the
 * execution lives and for a while after it ends, so a client that drops
 * its stream reconnects with `Last-Event-ID` and misses nothing.
 *
 * Memory is bounded in bytes, per execution and in total, whatever runs:
 * past an execution's bound its oldest log lines go first, then its oldest
 * call events; past the total bound whole records go, the longest-ended
 * first, then paused ones, then the oldest running ones. A stream of an
 * execution whose record is gone is rebuilt from the store, which holds
 * every line and call.
 *
 * @module
 */
import type { ExecutionEvent, Runtime } from "../../engine/mod.ts";
import { encodeValue } from "../../rpc/codec.ts";

const MiB = 1024 * 1024;
/** Events kept per execution: a count bound besides the byte bound (cheap scans per event). */
export const DEFAULT_EVENT_LOG_MAX_EVENTS = 5_000;
/** How long an ended execution's events stay: long enough to reconnect a dropped stream. */
export const DEFAULT_EVENT_LOG_RETAIN_MS = 5 * 60_000;
/**
 * Bytes kept per execution: a done event carries at most `inlineResultBytes` of result (32 KiB
 * by default; a larger result is stored and the event carries its reference), so even a run
 * that raised that limit to 1 MB fits, with room for its latest lines and calls.
 */
export const DEFAULT_EVENT_LOG_MAX_EXECUTION_BYTES = 4 * MiB;
/**
 * Bytes kept for every execution together: the service's memory for streams stays flat at
 * this whatever mix of runs arrives (RSS grew by gigabytes in 90 s of verbose runs without it).
 */
export const DEFAULT_EVENT_LOG_MAX_TOTAL_BYTES = 64 * MiB;
/** What an event costs besides its text: the object, its id, type and array slot. */
const EVENT_OVERHEAD_BYTES = 96;

/** One numbered event, ready to send. */
export interface LoggedEvent {
  id: number;
  type: string;
  data: string;
}

/** The events of one execution. */
export interface EventRecord {
  readonly events: LoggedEvent[];
  /** Events dropped past the bounds (oldest log lines go first, then calls). */
  dropped: number;
  /** `done` was seen (and the `diagnostics` a pending type check owed): no more will come. */
  ended: boolean;
  endedAt?: number;
  /**
   * The record was dropped while the execution had not ended, to keep the total bound: its
   * events are gone and a stream on it must continue from the store.
   */
  readonly evicted: boolean;
  /** Bytes its events are counted as. */
  readonly bytes: number;
  /** Resolves the next time an event arrives (or the log closes). */
  changed(): Promise<void>;
}

/** Bounds of the event logs. */
export interface EventLogOptions {
  /** Events kept per execution (default {@link DEFAULT_EVENT_LOG_MAX_EVENTS}). */
  maxEvents?: number;
  /** How long an ended execution's events stay (default 5 minutes). */
  retainMs?: number;
  /** Bytes kept per execution (default {@link DEFAULT_EVENT_LOG_MAX_EXECUTION_BYTES}). */
  maxExecutionBytes?: number;
  /** Bytes kept in all (default {@link DEFAULT_EVENT_LOG_MAX_TOTAL_BYTES}). */
  maxTotalBytes?: number;
}

/** The bytes `type` and `data` cost as UTF-16 strings, with the object around them. */
function costOf(type: string, data: string): number {
  return 2 * (type.length + data.length) + EVENT_OVERHEAD_BYTES;
}

class Record_ implements EventRecord {
  readonly events: LoggedEvent[] = [];
  dropped = 0;
  ended = false;
  /** `done` came with `typecheck: "pending"`: the record ends at the `diagnostics` event. */
  checking = false;
  endedAt?: number;
  evicted = false;
  bytes = 0;
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
  /** Ended executions, longest-ended first: the first to go past the total bound. */
  readonly #ended = new Set<string>();
  /** Paused executions, longest-paused first: the next to go. */
  readonly #paused = new Set<string>();
  readonly #maxEvents: number;
  readonly #retainMs: number;
  readonly #maxExecutionBytes: number;
  readonly #maxTotalBytes: number;
  readonly #off: () => void;
  readonly #sweep: ReturnType<typeof setInterval>;
  #bytes = 0;
  #closed = false;

  constructor(runtime: Runtime, options: EventLogOptions = {}) {
    this.#maxEvents = options.maxEvents ?? DEFAULT_EVENT_LOG_MAX_EVENTS;
    this.#retainMs = options.retainMs ?? DEFAULT_EVENT_LOG_RETAIN_MS;
    this.#maxExecutionBytes = options.maxExecutionBytes ?? DEFAULT_EVENT_LOG_MAX_EXECUTION_BYTES;
    this.#maxTotalBytes = options.maxTotalBytes ?? DEFAULT_EVENT_LOG_MAX_TOTAL_BYTES;
    this.#off = runtime.subscribe((e) => this.#add(e));
    this.#sweep = setInterval(() => this.#forget(), Math.min(60_000, this.#retainMs));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes every record's events are counted as together (at most the total bound). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The record of an execution this process ran recently, if it is still held. */
  get(executionId: string): EventRecord | undefined {
    return this.#records.get(executionId);
  }

  #add(e: ExecutionEvent): void {
    let rec = this.#records.get(e.executionId);
    if (!rec) {
      // Only executions seen from their start get a record: one resumed here after its record
      // went (or after a restart) would have a record without its beginning, so its streams
      // follow the store instead.
      if (e.type !== "started") return;
      rec = new Record_();
      this.#records.set(e.executionId, rec);
    }
    const { executionId: id, type, ...rest } = e;
    const data = JSON.stringify(encodeValue(rest));
    rec.events.push({ id: rec.nextId++, type, data });
    this.#count(rec, costOf(type, data));
    if (rec.events.length > this.#maxEvents) this.#drop(rec);
    while (rec.bytes > this.#maxExecutionBytes && this.#drop(rec));
    this.#paused.delete(id);
    // A `done` whose type check is still pending ends the record at the `diagnostics` after it.
    const checking = e.type === "done" && e.typecheck === "pending";
    if (type === "diagnostics") {
      // Findings after the end leave an ended record as it was.
      if (rec.checking) this.#end(id, rec);
    } else if (type === "done" && !checking) {
      this.#end(id, rec);
    } else {
      rec.checking = checking;
      // A rollback after the end, or a new pass: the record is live again.
      rec.ended = false;
      this.#ended.delete(id);
      if (type === "paused") this.#paused.add(id);
    }
    rec.notify();
    // An event too large to keep even alone (a huge result) leaves its record to the store.
    if (rec.bytes > this.#maxExecutionBytes) this.#evict(id, rec);
    this.#shrink();
  }

  #end(id: string, rec: Record_): void {
    rec.checking = false;
    rec.ended = true;
    rec.endedAt = Date.now();
    this.#ended.delete(id);
    this.#ended.add(id);
  }

  #count(rec: Record_, bytes: number): void {
    rec.bytes += bytes;
    this.#bytes += bytes;
  }

  /** Drops the oldest log line, else the oldest call event; false when neither is left. */
  #drop(rec: Record_): boolean {
    let i = rec.events.findIndex((x) => x.type === "log");
    if (i === -1) i = rec.events.findIndex((x) => x.type === "call");
    if (i === -1) return false;
    const [gone] = rec.events.splice(i, 1);
    this.#count(rec, -costOf(gone.type, gone.data));
    rec.dropped++;
    return true;
  }

  /** Removes a record. Streams reading an ended one finish from the events they hold. */
  #evict(id: string, rec: Record_): void {
    this.#records.delete(id);
    this.#ended.delete(id);
    this.#paused.delete(id);
    this.#bytes -= rec.bytes;
    rec.bytes = 0;
    if (!rec.ended) {
      // Its streams move to the store; the events go now, not when the last stream ends.
      rec.evicted = true;
      rec.events.length = 0;
      rec.notify();
    }
  }

  /** Keeps the total bound: longest-ended first, then paused, then the oldest running. */
  #shrink(): void {
    while (this.#bytes > this.#maxTotalBytes) {
      const id = first(this.#ended) ?? first(this.#paused) ?? first(this.#records.keys());
      if (id === undefined) return;
      this.#evict(id, this.#records.get(id)!);
    }
  }

  #forget(): void {
    const before = Date.now() - this.#retainMs;
    for (const id of this.#ended) {
      const rec = this.#records.get(id)!;
      // Longest-ended first: the first one kept ends the sweep.
      if ((rec.endedAt ?? 0) >= before) return;
      this.#evict(id, rec);
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

function first<T>(items: Iterable<T>): T | undefined {
  for (const item of items) return item;
  return undefined;
}
