/**
 * Server-sent events for one execution. An execution this process runs
 * streams live from its event log; resuming with `Last-Event-ID` sends what
 * came after that id. An execution the log no longer holds (ended long ago,
 * or run by another process) is rebuilt from the store: its stored console
 * lines, its calls and its status, then followed by polling until it ends.
 * A live stream whose record the log lets go (to keep its memory bound)
 * continues from the store the same way, its ids after the ones it sent
 * (events it already sent may come again then).
 *
 * A stream ends when its key is revoked. An open stream counts as a client listening for its execution
 * (`runtime.watchExecution`), which pending calls report as
 * `clientConnected`.
 *
 * @module
 */
import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import type { ExecutionDetails } from "../../engine/mod.ts";
import { encodeValue } from "../../rpc/codec.ts";
import type { ServiceDeps } from "./deps.ts";
import type { EventRecord } from "../requests/event_log.ts";
import type { Principal } from "../access/keys.ts";
import { streamStop } from "./revocation.ts";

/** A comment line this often keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;
/** How often a stream rebuilt from the store looks for changes. */
const POLL_MS = 500;

function lastId(value: string | undefined): number {
  const n = Number(value);
  return value !== undefined && Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** The response streaming `details`'s events after `lastEventId`. */
export function eventStream(
  deps: ServiceDeps,
  c: Context,
  details: ExecutionDetails,
  lastEventId: string | undefined,
  principal?: Principal,
): Response {
  const record = deps.events.get(details.executionId);
  return streamSSE(c, async (stream) => {
    using stop = streamStop(stream, deps.keys, deps.shutdown, principal);
    // While the stream is open a client listens: pending calls say `clientConnected: true`.
    const release = deps.runtime.watchExecution(details.executionId);
    try {
      if (record) {
        const sent = await live(stream, record, lastId(lastEventId), stop.signal);
        if (sent === undefined) return;
        const now = await deps.runtime.execution(details.executionId);
        if (now) await fromStore(deps, stream, now, 0, stop.signal, sent);
      } else {
        await fromStore(deps, stream, details, lastId(lastEventId), stop.signal);
      }
    } finally {
      release();
    }
  });
}

/** Resolves after `ms`, on `signal`'s abort, or when `also` settles, whichever is first. */
export function wait(ms: number, signal: AbortSignal, also?: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
    also?.then(done);
  });
}

/**
 * Sends `record`'s events after `after` until it ends; returns the last id sent when the record
 * was evicted before the end (the caller continues from the store), else `undefined`.
 */
async function live(
  stream: SSEStreamingApi,
  record: EventRecord,
  after: number,
  signal: AbortSignal,
  base = 0,
): Promise<number | undefined> {
  let sent = Math.max(0, after - base);
  while (!signal.aborted) {
    if (record.evicted) return base + sent;
    const changed = record.changed();
    for (const e of record.events) {
      if (e.id <= sent) continue;
      await stream.writeSSE({ id: String(base + e.id), event: e.type, data: e.data });
      sent = e.id;
    }
    if (record.ended) return undefined;
    const before = sent;
    await wait(KEEPALIVE_MS, signal, changed);
    if (!signal.aborted && sent === before && record.events.at(-1)?.id === sent) {
      await stream.write(": keepalive\n\n");
    }
  }
  return undefined;
}

/**
 * What the store holds that this stream has not sent, as events: log lines after `read.logSeq`
 * (each read once: a verbose run is not read again on every poll, nor remembered by key), then
 * the start, calls and status, each with a key the caller sends once.
 */
async function snapshot(
  deps: ServiceDeps,
  d: ExecutionDetails,
  read: { logSeq: number },
): Promise<{ type: string; data: unknown; key?: string }[]> {
  const events: { type: string; data: unknown; key?: string }[] = [
    { type: "started", data: { namespace: d.namespace }, key: "started" },
  ];
  let cursor: string | undefined = read.logSeq > 0 ? String(read.logSeq) : undefined;
  do {
    const page = await deps.runtime.readLogs({ logRef: d.logRef, cursor, limit: 500 });
    for (const l of page.items) {
      const { seq, ...entry } = l;
      events.push({ type: "log", data: { entry } });
      read.logSeq = Math.max(read.logSeq, seq);
    }
    cursor = page.nextCursor;
  } while (cursor);
  for (const call of d.calls) {
    const { result: _r, ...rest } = call;
    events.push({ type: "call", data: { call: rest }, key: `call:${call.seq}:${call.state}` });
  }
  if (d.status === "paused") {
    events.push({ type: "paused", data: { pending: d.pending }, key: `paused:${d.updatedAt}` });
  } else if (d.status !== "running") {
    const end: Record<string, unknown> = { status: d.status };
    if (d.result !== undefined) end.result = d.result;
    if (d.error) end.error = d.error;
    events.push({ type: "done", data: end, key: "done" });
  }
  if (d.diagnostics) {
    events.push({ type: "diagnostics", data: { diagnostics: d.diagnostics }, key: "diagnostics" });
  }
  return events;
}

async function fromStore(
  deps: ServiceDeps,
  stream: SSEStreamingApi,
  first: ExecutionDetails,
  after: number,
  signal: AbortSignal,
  base = 0,
): Promise<void> {
  const seen = new Set<string>();
  const read = { logSeq: 0 };
  let nextId = base + 1;
  let details: ExecutionDetails | undefined = first;
  while (details && !signal.aborted) {
    for (const e of await snapshot(deps, details, read)) {
      if (e.key !== undefined) {
        if (seen.has(e.key)) continue;
        seen.add(e.key);
      }
      const id = nextId++;
      if (id <= after) continue;
      await stream.writeSSE({
        id: String(id),
        event: e.type,
        data: JSON.stringify(encodeValue(e.data)),
      });
    }
    const ended = details.status !== "running" && details.status !== "paused";
    if (ended) return;
    // Another process runs it, or it waits for a decision: look again shortly.
    const record = deps.events.get(details.executionId);
    if (record) {
      // It came back to life here (a decision in this process): the live log follows on, its
      // ids after the snapshot's.
      const sent = await live(stream, record, 0, signal, nextId - 1);
      if (sent === undefined) return;
      nextId = sent + 1;
    }
    await wait(POLL_MS, signal);
    details = await deps.runtime.execution(details.executionId);
  }
}
