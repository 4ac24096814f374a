/**
 * The host side of the type checker: requests go to a worker thread that
 * keeps the TypeScript compiler, its libs and the parsed declarations warm.
 * The worker starts on the first check and ends with the runtime.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { CheckRequest, CheckResult } from "./check.ts";
import { SessionDeclarations } from "./session_declarations.ts";

/** How a caller wants the code checked: not at all, beside the run, or before it. */
export type TypecheckMode = "off" | "warn" | "strict";

/** Every mode, for validation. */
export const TYPECHECK_MODES: readonly TypecheckMode[] = ["off", "warn", "strict"];

/** Checks code on a worker thread. */
export class Checker {
  #worker: Worker | undefined;
  #next = 1;
  readonly #pending = new Map<
    number,
    { resolve(r: CheckResult): void; reject(e: Error): void }
  >();
  #closed = false;
  #warming: Promise<void> | undefined;
  /** What each session's executions declared, for its next execution's check. */
  readonly sessions: SessionDeclarations = new SessionDeclarations();

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
    const worker = this.#start();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, request });
    });
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
