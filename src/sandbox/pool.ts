/**
 * A warm pool of pre-spawned children for one policy. A child leaves the
 * pool for exactly one execution and is never returned; the pool refills in
 * the background so the next execution finds one waiting.
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
}

/** After a failed spawn, wait this long before the next try (no hot loop). */
const SPAWN_RETRY_MS = 250;

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
  #spawning = 0;
  #closed = false;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #options: ChildPoolOptions;

  constructor(options: ChildPoolOptions) {
    this.#options = options;
    this.#refill();
  }

  /** Children waiting now. */
  get idleCount(): number {
    return this.#idle.length;
  }

  /** Takes a waiting child, or `undefined` if none is alive. Refills behind. */
  take(): SandboxChild | undefined {
    let child: SandboxChild | undefined;
    while ((child = this.#idle.shift()) !== undefined) {
      if (child.alive) break;
    }
    this.#refill();
    return child;
  }

  /** Resolves once `count` children are waiting (for benchmarks and tests). */
  async warm(count = this.#options.size): Promise<void> {
    while (!this.#closed && this.#idle.length < Math.min(count, this.#options.size)) {
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all(this.#idle.map((c) => c.ready));
  }

  #refill(): void {
    if (this.#closed || this.#retryTimer !== undefined) return;
    while (this.#idle.length + this.#spawning < this.#options.size) {
      this.#spawning++;
      this.#options.spawn().then(
        (child) => {
          this.#spawning--;
          if (this.#closed) {
            child.kill();
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
          this.#options.onSpawnError?.(err);
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
    const idle = this.#idle;
    this.#idle = [];
    for (const c of idle) c.kill();
    await Promise.all(idle.map((c) => c.exited));
    // Spawns still under way are killed as they land (see #refill).
    while (this.#spawning > 0) await new Promise((r) => setTimeout(r, 5));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
