/**
 * The host side of the type checker: requests go to a worker thread that
 * keeps the TypeScript compiler, its libs and the parsed declarations warm.
 * The worker starts on the first check and ends with the runtime.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { CheckRequest, CheckResult } from "./check.ts";
import { CheckCache } from "./check_cache.ts";
import { SessionDeclarations } from "./session_declarations.ts";

/** How a caller wants the code checked: not at all, beside the run, or before it. */
export type TypecheckMode = "off" | "warn" | "strict";

/** Every mode, for validation. */
export const TYPECHECK_MODES: readonly TypecheckMode[] = ["off", "warn", "strict"];

/**
 * Internal test seam, not an option: holds every check's answer back this many ms, so a test
 * can make a check finish after its run. Never exported from the package.
 */
export const checkerSeam: { delayMs: number } = { delayMs: 0 };

/** Checks code on a worker thread. */
export class Checker {
  #worker: Worker | undefined;
  #next = 1;
  readonly #pending = new Map<
    number,
    { resolve(r: CheckResult): void; reject(e: Error): void }
  >();
  #closed = false;
  readonly #cache = new CheckCache();
  #warming: Promise<void> | undefined;
  /** What each session's executions declared, for its next execution's check. */
  readonly sessions: SessionDeclarations = new SessionDeclarations();
  /** Work finishing checks whose runs already returned (see {@link later}). */
  readonly #late = new Set<Promise<void>>();
  /** The late work of each session, which its next check waits for. */
  readonly #lateBySession = new Map<string, Promise<void>>();

  /**
   * Starts the worker and checks a trivial script against `declarations`, so the first real
   * check finds the compiler, its libs and the declarations parsed (about half a second cold).
   */
  warm(declarations: string, declarationHash: string): Promise<void> {
    this.#warming ??= this.check({
      code: "return 1",
      form: "script",
      declarations,
      declarationHash,
    })
      .then(() => {}, () => {});
    return this.#warming;
  }

  /** Checks `request`; rejects only if the checker itself failed. */
  check(request: CheckRequest): Promise<CheckResult> {
    if (this.#closed) return Promise.reject(new CordonError("runtime_closed", "Checker closed"));
    const answer = this.#cache.get(request, () => {
      const worker = this.#start();
      const id = this.#next++;
      return new Promise<CheckResult>((resolve, reject) => {
        this.#pending.set(id, { resolve, reject });
        worker.postMessage({ id, request });
      });
    });
    const { delayMs } = checkerSeam;
    return delayMs > 0
      ? answer.then((r) => new Promise((resolve) => setTimeout(() => resolve(r), delayMs)))
      : answer;
  }

  /**
   * Keeps `work` (what finishes a check after its run returned: findings stored, a session's
   * declarations remembered) until it settles; {@link drain} waits for it, and so does the next
   * check of `sessionId` ({@link sessionReady}). Its failure is its own.
   */
  later(work: Promise<void>, sessionId?: string): void {
    const tracked: Promise<void> = work.catch(() => {}).finally(() => {
      this.#late.delete(tracked);
      if (sessionId !== undefined && this.#lateBySession.get(sessionId) === tracked) {
        this.#lateBySession.delete(sessionId);
      }
    });
    this.#late.add(tracked);
    if (sessionId !== undefined) this.#lateBySession.set(sessionId, tracked);
  }

  /** Resolves once the late work of `sessionId` is done; `undefined` when there is none. */
  sessionReady(sessionId: string): Promise<void> | undefined {
    return this.#lateBySession.get(sessionId);
  }

  /** Resolves once every late work is done, including any started meanwhile. */
  async drain(): Promise<void> {
    while (this.#late.size > 0) await Promise.allSettled([...this.#late]);
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./checker_worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (
      event: MessageEvent<{ id: number; result?: CheckResult; error?: string }>,
    ) => {
      const { id, result, error } = event.data;
      const waiter = this.#pending.get(id);
      if (!waiter) return;
      this.#pending.delete(id);
      if (result) waiter.resolve(result);
      else waiter.reject(new Error(error ?? "The type checker failed"));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#fail(new Error(`The type checker stopped: ${event.message}`));
    };
    this.#worker = worker;
    return worker;
  }

  #fail(err: Error): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    for (const [, w] of this.#pending) w.reject(err);
    this.#pending.clear();
  }

  /** Ends the worker; pending checks fail. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#fail(new CordonError("runtime_closed", "The runtime is closed"));
  }
}
