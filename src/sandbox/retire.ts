/**
 * Ending children whose run is over without slowing the children still running.
 *
 * Killing a process is not free for the machine: the kernel then unmaps its memory and closes its
 * files, in the dying process's own time, on a CPU the other children want. Measured on 2 cores
 * with fifty pooled runs sleeping 200 ms, each child killed as its run answered: the last answers
 * reached the host 40–80 ms after the last sleep ended, against 1–8 ms with the kills held back.
 *
 * So a child whose run is over while other children still run is stopped at once (SIGSTOP: none
 * of its threads runs again, nothing it left behind happens) and killed with the others once no
 * child runs, or {@link RETIRE_MAX_MS} after the first of them stopped, whichever comes first.
 * A child retired while no other runs is not stopped but killed, a turn of the event loop later
 * (see {@link Retirer.retire}). Stopped, a child still holds its memory (bounded by its group),
 * its tasks and its pipes, for that long at most.
 *
 * @module
 */
import { afterTurn } from "../loop.ts";
import type { SandboxChild } from "./child.ts";

/**
 * The longest a stopped child waits for its kill: a burst's runs end within a few tens of ms of
 * one another, and under a steady stream of overlapping runs this bounds how many finished
 * children exist at once (measured on the bursts of 50: 250 ms gave the same walls).
 */
export const RETIRE_MAX_MS = 100;

/** What a {@link Retirer} needs of a child. */
export type Retirable = Pick<SandboxChild, "kill" | "freeze" | "exited" | "running">;

/** Children stopped at the end of their run, killed together once none runs. */
export class Retirer<C extends Retirable = SandboxChild> {
  readonly #stopped = new Set<C>();
  /** Killed after this turn: they were the last running (see {@link retire}). */
  readonly #doomed = new Set<C>();
  readonly #running: () => number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing = false;

  /**
   * `running()` counts the children that may run now: not killed, not stopped by this or held
   * suspended (a child whose run is retiring counts until it is).
   */
  constructor(running: () => number) {
    this.#running = running;
  }

  /** Children stopped or about to be killed, not killed yet. */
  get size(): number {
    return this.#stopped.size + this.#doomed.size;
  }

  /**
   * Ends `child`. The last child running is killed after this turn of the event loop, with any
   * stopped ones: a kill costs the host's thread about 80 µs (the signal reaches every thread of
   * the child), so it comes once the run's result is on its way; the frames it sends meanwhile
   * are dropped. Any other is stopped now and killed later.
   */
  retire(child: C): void {
    if (this.#stopped.has(child) || this.#doomed.has(child)) return;
    if (this.#running() - this.#doomed.size <= 1 && child.running) {
      this.#doomed.add(child);
      this.#flushSoon();
      return;
    }
    if (!child.running || !child.freeze()) {
      child.kill(); // killed or gone already
      this.settle();
      return;
    }
    this.#stopped.add(child);
    // One that dies meanwhile (another signal, the kernel's OOM killer) is not waited for.
    child.exited.then(() => this.#stopped.delete(child), () => this.#stopped.delete(child));
    this.#timer ??= setTimeout(() => this.flush(), RETIRE_MAX_MS);
  }

  /** Kills the stopped children once no child runs (call it whenever one stops running). */
  settle(): void {
    if (this.#stopped.size === 0 || this.#running() - this.#doomed.size > 0) return;
    this.#flushSoon();
  }

  /** {@link flush} after a turn of the event loop: the run that ended last answers first. */
  #flushSoon(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    afterTurn(() => this.flush());
  }

  /** Kills every stopped child, and those about to be killed, now. */
  flush(): void {
    this.#flushing = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const ending = [...this.#doomed, ...this.#stopped];
    this.#doomed.clear();
    this.#stopped.clear();
    for (const child of ending) child.kill();
  }
}
