/**
 * Deadlines for tool calls without a timer per call. Calls with the same
 * time limit end in the order they started, so each limit keeps one queue
 * and one timer for its earliest live deadline. A call that ends in time
 * crosses its entry out. A burst of a thousand calls costs a few timers, not
 * a thousand (each of Deno's Node-compatible timers is an object with a
 * handle, measured at several µs a call). When nothing is live the timer is
 * left armed: it fires early for the calls after, finds nothing due and
 * re-arms for the first live one, so calls made one after another set no
 * timer each (measured on 1,000 sequential calls, with the journal's
 * write-behind timer likewise: about 20 µs less a call). Armed with nothing
 * live, it does not keep the process alive (unref'd until a call comes).
 *
 * @module
 */

interface Deadline {
  at: number;
  fire: (() => void) | undefined;
}

class Queue {
  #items: Deadline[] = [];
  #head = 0;
  #live = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #ms: number;

  constructor(ms: number) {
    this.#ms = ms;
  }

  add(fire: () => void): () => void {
    const d: Deadline = { at: performance.now() + this.#ms, fire };
    this.#items.push(d);
    if (this.#live++ === 0 && this.#timer !== undefined) keepAlive(this.#timer, true);
    if (this.#timer === undefined) this.#arm(d.at);
    return () => {
      if (d.fire === undefined) return;
      d.fire = undefined;
      if (--this.#live === 0) this.#drop();
      else this.#skipEnded();
    };
  }

  /** Drops ended entries at the front, so a steady stream of calls holds only the live ones. */
  #skipEnded(): void {
    while (this.#items[this.#head].fire === undefined) this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  #arm(at: number): void {
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, at - performance.now()));
  }

  /** Nothing is live: the entries go; the timer, if armed, is left to fire early, unref'd. */
  #drop(): void {
    this.#items = [];
    this.#head = 0;
    if (this.#timer !== undefined) keepAlive(this.#timer, false);
  }

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    while (this.#head < this.#items.length) {
      const d = this.#items[this.#head];
      if (d.fire !== undefined && d.at > now) break;
      this.#head++;
      const fire = d.fire;
      if (fire === undefined) continue;
      d.fire = undefined;
      this.#live--;
      fire();
    }
    if (this.#live === 0) this.#drop();
    else {
      this.#skipEnded();
      this.#arm(this.#items[this.#head].at);
    }
  }
}

/**
 * Runs a callback when its time limit passes, unless cancelled first.
 *
 * @example
 * ```ts
 * import { Deadlines } from "./deadlines.ts";
 * const deadlines = new Deadlines();
 * let fired = false;
 * const cancel = deadlines.add(10_000, () => (fired = true));
 * cancel(); // ended in time: no timer is left behind
 * console.assert(!fired);
 * ```
 */
export class Deadlines {
  readonly #queues = new Map<number, Queue>();

  /** Calls `fire` once `ms` have passed; the returned function cancels it (idempotent). */
  add(ms: number, fire: () => void): () => void {
    let queue = this.#queues.get(ms);
    if (!queue) this.#queues.set(ms, queue = new Queue(ms));
    return queue.add(fire);
  }
}

/** Whether `timer` (a Node-style timer object, or a web id) keeps the process alive. */
function keepAlive(timer: ReturnType<typeof setTimeout>, yes: boolean): void {
  if (typeof timer === "number") {
    if (yes) Deno.refTimer(timer);
    else Deno.unrefTimer(timer);
  } else {
    const t = timer as { ref?: () => void; unref?: () => void };
    if (yes) t.ref?.();
    else t.unref?.();
  }
}
