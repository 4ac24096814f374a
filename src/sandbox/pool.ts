/**
 * A warm pool of pre-spawned children for one policy. A child leaves the
 * pool for exactly one execution and is never returned; the pool refills in
 * the background so the next execution finds one waiting.
 *
 * Refilling is gentle: at most `refill` children boot at once in the
 * background (default: the pool's size, at most one per CPU). A burst that
 * empties a pool of 50 would otherwise start 50 Deno processes while its
 * own runs want the CPU (measured on 2 cores: 50 pooled runs sleeping 200 ms
 * took 3.5 s instead of 0.35 s); fewer than one per CPU, and quick
 * sequential runs outpace the refill and start cold (a new session every
 * 10 ms: 8 ms a run with two booting at once, 32–54 ms with one).
 * {@link ChildPool.prewarm} is the way to fill quickly, ahead of a burst.
 *
 * A child taken is replaced once its run is over (its process has exited) or
 * {@link REFILL_DELAY_MS} later, whichever comes first, while another child
 * still waits: the replacement's spawn and boot (about 25 ms of CPU) then do
 * not share the two cores with the run that took it (measured: a trivial
 * pooled run 2.3–3.1 ms with the refill started at the take, 1.7–1.9 ms
 * after it). That holds for the last child too: a burst that empties a pool
 * of 50 would otherwise spawn its replacements while its fifty runs start, and
 * the spawns take the host's thread (measured on 2 cores, fifty runs sleeping
 * 200 ms: their calls reached the host until 36–90 ms into the burst, against
 * 28–39 ms with no refill). A run that then finds the pool empty starts the
 * refills at once ({@link ChildPool.takeOrWait}).
 *
 * A run that finds the pool empty while its refill is under way takes the
 * child that spawn lands ({@link ChildPool.takeOrWait}) rather than spawning
 * one more beside it: runs one after another then never start cold, and no
 * third child boots on the two cores (measured: trivial runs back to back
 * 61.6–64.5 a second, about 30 % cold, p90 42–46 ms, against 67.0–69.5,
 * none cold, p90 23–24 ms; see docs/decisions.md for the median's cost).
 *
 * @module
 */
import type { SandboxChild } from "./child.ts";

/** Options for {@link ChildPool}. */
export interface ChildPoolOptions {
  /** Children kept waiting. 0 turns the pool off. */
  size: number;
  /** Makes one child (with the pool's policy). */
  spawn(): Promise<SandboxChild>;
  /** Told when a spawn fails (the pool backs off and tries again later). */
  onSpawnError?(err: unknown): void;
  /** Children booting at once while the pool refills in the background (default above). */
  refill?: number;
}

/** After a failed spawn, wait this long before the next try (no hot loop). */
const SPAWN_RETRY_MS = 250;

/**
 * How long a taken child's replacement waits for the run that took it to end, while the pool
 * still has a child waiting: longer than most runs of a few calls, so their replacement does not
 * boot beside them; a second child taken meanwhile starts the refill at once.
 */
export const REFILL_DELAY_MS = 250;

/** Children booting at once while {@link ChildPool.prewarm} fills the pool. */
const PREWARM_CONCURRENCY = 8;

/**
 * Pre-spawned children, handed out once each.
 *
 * @example
 * ```ts ignore
 * await using pool = new ChildPool({ size: 2, spawn });
 * const child = pool.take() ?? await spawn();
 * ```
 */
export class ChildPool {
  #idle: SandboxChild[] = [];
  /** Spawns under way (the process is not handed over yet). */
  #spawning = 0;
  /** Children of the pool's that have not said ready yet (spawning, idle or taken). */
  #booting = 0;
  /** Children {@link prewarm} asked for beyond `size`, not taken yet. */
  #extra = 0;
  /** Callers of {@link prewarm} still waiting: refills go at prewarm speed meanwhile. */
  #prewarming = 0;
  #closed = false;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Refills waiting for a taken child's run to end (see {@link REFILL_DELAY_MS}). */
  readonly #deferred = new Set<ReturnType<typeof setTimeout>>();
  /** Runs waiting for a spawn under way ({@link takeOrWait}), first come first served. */
  #landing: ((child: SandboxChild | undefined) => void)[] = [];
  readonly #options: ChildPoolOptions;
  readonly #refillConcurrency: number;

  constructor(options: ChildPoolOptions) {
    this.#options = options;
    const perCpu = Math.min(options.size, navigator.hardwareConcurrency || 1);
    this.#refillConcurrency = Math.max(1, Math.floor(options.refill ?? perCpu));
    this.#refill();
  }

  /** Children waiting now. */
  get idleCount(): number {
    return this.#idle.length;
  }

  /** Children kept waiting: `size`, plus what {@link prewarm} added and nobody has taken yet. */
  get target(): number {
    return this.#options.size + this.#extra;
  }

  /**
   * Takes a waiting child, or `undefined` if none is alive. Refills behind: the taken child's
   * replacement once its run is over; when none was there, at once (refills held back start).
   */
  take(): SandboxChild | undefined {
    let child: SandboxChild | undefined;
    while ((child = this.#idle.shift()) !== undefined) {
      if (child.alive) break;
    }
    // A prewarmed child taken is not replaced: the pool goes back to its size.
    if (child && this.#extra > 0) this.#extra--;
    if (child) this.#refillAfter(child);
    else this.#refill();
    return child;
  }

  /**
   * {@link take}, or else the next child a spawn under way lands, when no other run has claimed
   * it: it started earlier than a spawn of the caller's own would, and does not add a third boot
   * to the two cores. `undefined` when nothing is coming (the caller spawns its own).
   */
  takeOrWait(): Promise<SandboxChild | undefined> | SandboxChild | undefined {
    const child = this.take();
    if (child || this.#closed || this.#spawning <= this.#landing.length) return child;
    return new Promise((resolve) => this.#landing.push(resolve));
  }

  /** Refills once `child` has exited, or after {@link REFILL_DELAY_MS}. */
  #refillAfter(child: SandboxChild): void {
    const go = (): void => {
      if (!this.#deferred.delete(timer)) return;
      clearTimeout(timer);
      this.#refill();
    };
    const timer = setTimeout(go, REFILL_DELAY_MS);
    this.#deferred.add(timer);
    child.exited.then(go, go);
  }

  /**
   * Resolves once `count` children (default: the pool's size) are waiting,
   * ready. Someone waits, so meanwhile the pool boots several at once.
   */
  async warm(count = this.#options.size): Promise<void> {
    this.#prewarming++;
    try {
      this.#refill();
      while (!this.#closed && this.#idle.length < Math.min(count, this.target)) {
        await new Promise((r) => setTimeout(r, 2));
      }
      await Promise.all(this.#idle.map((c) => c.ready));
    } finally {
      this.#prewarming--;
    }
  }

  /**
   * Makes `count` children wait, ready, ahead of a burst: the pool grows to
   * `count` for as long as those children are not taken (it then shrinks back
   * to its size), booting several at once. Resolves when they are ready.
   */
  prewarm(count: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#extra = Math.max(this.#extra, count - this.#options.size);
    return this.warm(count);
  }

  #refill(): void {
    if (this.#closed || this.#retryTimer !== undefined) return;
    const concurrency = this.#prewarming > 0
      ? Math.max(PREWARM_CONCURRENCY, this.#refillConcurrency)
      : this.#refillConcurrency;
    while (this.#idle.length + this.#spawning < this.target && this.#booting < concurrency) {
      this.#spawning++;
      this.#booting++;
      this.#options.spawn().then(
        (child) => {
          this.#spawning--;
          const booted = () => {
            this.#booting--;
            this.#refill();
          };
          if (this.#closed) {
            child.kill();
            booted();
            return;
          }
          // The next refill starts once this one has booted (or died trying).
          Promise.race([child.ready, child.exited]).then(booted, booted);
          const waiter = this.#landing.shift();
          if (waiter) {
            // Handed to the run that waited for it: the pool is short of one, as after a take.
            if (this.#extra > 0) this.#extra--;
            waiter(child);
            this.#refill();
            return;
          }
          this.#idle.push(child);
          // A child that dies while idle leaves room for a new one.
          child.exited.then(() => {
            const i = this.#idle.indexOf(child);
            if (i !== -1) {
              this.#idle.splice(i, 1);
              this.#refill();
            }
          });
        },
        (err) => {
          this.#spawning--;
          this.#booting--;
          this.#options.onSpawnError?.(err);
          if (this.#landing.length > this.#spawning) this.#landing.pop()?.(undefined);
          if (this.#closed) return;
          this.#retryTimer = setTimeout(() => {
            this.#retryTimer = undefined;
            this.#refill();
          }, SPAWN_RETRY_MS);
        },
      );
    }
  }

  /** Kills every waiting child and waits for them. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    for (const timer of this.#deferred) clearTimeout(timer);
    this.#deferred.clear();
    const idle = this.#idle;
    this.#idle = [];
    for (const c of idle) c.kill();
    for (const waiter of this.#landing.splice(0)) waiter(undefined);
    await Promise.all(idle.map((c) => c.exited));
    // Spawns still under way are killed as they land (see #refill).
    while (this.#spawning > 0) await new Promise((r) => setTimeout(r, 5));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
