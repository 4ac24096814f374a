/**
 * Big frames are parsed off the host's main thread. A frame is untrusted
 * input whose size the caller chooses (up to 64 MiB): on the main thread,
 * joining, decoding, scanning and parsing a 60 MB line held the event loop
 * for 1.3 s here, and every tenant shares that loop. Lines over
 * {@link BIG_FRAME_BYTES} go to one Worker, started when the first such line
 * comes and stopped when none is left, and come back in slices
 * (`value_slices.ts`) the main thread rebuilds one turn at a time.
 *
 * @module
 */
import type { BigFrameReply, BigFrameRequest } from "./big_frame_messages.ts";
import type { BigLineParser, BigLineResult } from "./framing.ts";
import { ValueBuilder } from "./value_builder.ts";

/**
 * Lines longer than this are parsed off the main thread. Below it the main
 * thread's whole cost (decode, nesting scan, parse, tag decode) stays a few
 * ms even for the costliest content (measured: about 10 ms for 256 KiB of
 * tiny objects), and the hot path (tool calls are ~100-byte frames) never
 * pays a Worker round trip.
 */
export const BIG_FRAME_BYTES = 256 * 1024;

interface Job {
  builder: ValueBuilder;
  resolve(result: BigLineResult): void;
}

/** Parses big lines in one shared Worker (see the module docs). */
export class BigFrameParser implements BigLineParser {
  readonly threshold: number;
  #worker: Worker | undefined;
  #jobs = new Map<number, Job>();
  #nextId = 1;
  #started = 0;

  constructor(threshold = BIG_FRAME_BYTES) {
    this.threshold = threshold;
  }

  /** How many Workers this parser has started (they stop when idle). */
  get workersStarted(): number {
    return this.#started;
  }

  /** Parses one line, given as parts whose buffers it takes (they are transferred). */
  parse(parts: Uint8Array[]): Promise<BigLineResult> {
    const id = this.#nextId++;
    const worker = this.#ensureWorker();
    return new Promise((resolve) => {
      this.#jobs.set(id, { builder: new ValueBuilder(), resolve });
      const request: BigFrameRequest = { id, parts };
      worker.postMessage(request, parts.map((p) => p.buffer as ArrayBuffer));
    });
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./big_frame_worker.ts", import.meta.url), {
      type: "module",
    });
    this.#started++;
    worker.onmessage = (e: MessageEvent<BigFrameReply>) => this.#receive(e.data);
    worker.onerror = (e) => {
      // A Worker that failed (out of memory, a bug) fails the lines it held, not the host.
      e.preventDefault();
      this.#failAll(`that the host's parser failed on (${e.message})`);
    };
    worker.onmessageerror = () => this.#failAll("whose parse the host could not read");
    this.#worker = worker;
    return worker;
  }

  #receive(reply: BigFrameReply): void {
    const job = this.#jobs.get(reply.id);
    if (!job) return;
    if ("fault" in reply) return this.#finish(reply.id, { ok: false, fault: reply.fault });
    try {
      job.builder.add(reply);
    } catch (err) {
      return this.#finish(reply.id, {
        ok: false,
        fault: {
          kind: "unreadable",
          reason: `that could not be rebuilt (${(err as Error).message})`,
        },
      });
    }
    if (reply.last) {
      this.#finish(reply.id, { ok: true, frame: job.builder.result(), chars: reply.chars });
    } else {
      const ack: BigFrameRequest = { ack: reply.id };
      this.#worker?.postMessage(ack);
    }
  }

  #finish(id: number, result: BigLineResult): void {
    const job = this.#jobs.get(id);
    if (!job) return;
    this.#jobs.delete(id);
    if (this.#jobs.size === 0) this.#stop();
    job.resolve(result);
  }

  #failAll(reason: string): void {
    const jobs = [...this.#jobs.values()];
    this.#jobs.clear();
    this.#stop();
    for (const job of jobs) job.resolve({ ok: false, fault: { kind: "unreadable", reason } });
  }

  /** An idle Worker is stopped: it would keep the process alive and hold memory for nothing. */
  #stop(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
  }
}

/** The host's one parser, shared by every child's reader. */
export const bigFrameParser: BigFrameParser = new BigFrameParser();
