/**
 * A new execution's row, written while its first pass already runs. The run frame leaves first
 * and the row is written while the child works on the other core, so a trivial pooled run no
 * longer waits for the insert before its child starts (measured on runs alternating between the
 * two orders in one process: 0.03–0.1 ms, 2–6 %, less). Nothing the child asks of the host is
 * handled before the row is written and `started` announced: its requests and notifications
 * wait at {@link heldUntil}, so every call is journaled under a recorded execution and every
 * event follows `started`. Until then the script can only compute; a host that dies meanwhile
 * leaves no row, and had told no one the execution's id.
 *
 * @module
 */
import { CordonError, type ErrorInfo, toErrorInfo } from "../../errors.ts";
import { nextTurn } from "../../loop.ts";
import type { ChildHandlers } from "../../sandbox/child.ts";
import type { EventHub } from "./events.ts";
import type { ExecuteHooks } from "./types.ts";

/** The writing of one new execution's row, done once, with the gate its child waits at. */
export class RunStart {
  readonly #write: () => Promise<void>;
  readonly #written = Promise.withResolvers<void>();
  #done: Promise<void> | undefined;

  /** `write` stores the row and announces it (the `started` event, `onStart`). */
  constructor(write: () => Promise<void>) {
    this.#write = write;
    this.#written.promise.catch(() => {}); // a failure is thrown by now()
  }

  /** Settles once the row is written (rejects if it cannot be). */
  get gate(): Promise<void> {
    return this.#written.promise;
  }

  /** Writes the row, once; later calls wait for the same write. */
  now(): Promise<void> {
    return this.#done ??= this.#write().then(
      () => this.#written.resolve(),
      (err) => {
        this.#written.reject(err);
        throw err;
      },
    );
  }

  /**
   * Writes the row once the run frame has gone out (a turn of the event loop sends it). If the
   * row cannot be written, the pass is stopped, `forget` called once it has ended, and the error
   * thrown, as it was before any child ran.
   */
  async beside(
    pass: { abort(info: ErrorInfo): void; next(): Promise<unknown> },
    forget: () => void,
  ): Promise<void> {
    await nextTurn();
    try {
      await this.now();
    } catch (err) {
      pass.abort(toErrorInfo(err, "store_unavailable"));
      await pass.next();
      forget();
      throw err;
    }
  }
}

/** What a held request gets when the row could not be written: no word of the host's store. */
function refused(): never {
  throw new CordonError("store_unavailable", "The execution could not be recorded; it is stopped");
}

/**
 * `handlers` whose requests and notifications wait until `gate` has settled, in the order they
 * came; once it has, they go straight through. If it rejects, requests fail with
 * `store_unavailable` (the store's own error, which may name its files, stays in the host) and
 * notifications are dropped (the child is being stopped).
 */
export function heldUntil(gate: Promise<void> | undefined, handlers: ChildHandlers): ChildHandlers {
  if (!gate) return handlers;
  let open = false;
  gate.then(() => (open = true), () => {});
  const { onRequest, onNotification } = handlers;
  return {
    ...handlers,
    onRequest: (method, params) =>
      open ? onRequest!(method, params) : gate.then(() => onRequest!(method, params), refused),
    onNotification: (method, params) => {
      if (open) onNotification?.(method, params);
      else gate.then(() => onNotification?.(method, params), () => {});
    },
  };
}

/** Says a new execution is recorded: the `started` event, then the caller's `onStart`. */
export function announceStart(
  events: EventHub,
  executionId: string,
  namespace: string,
  hooks: ExecuteHooks | undefined,
): void {
  if (events.active) events.emit({ type: "started", executionId, namespace });
  try {
    hooks?.onStart?.(executionId);
  } catch {
    // The caller's callback cannot stop a recorded execution.
  }
}
