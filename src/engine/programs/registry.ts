/**
 * The interactive programs a runtime holds, by id and namespace, so a later
 * request (HTTP, MCP) can poll, write to or kill one. Like sessions they are
 * node-local. An exited program stays readable for {@link EXITED_RETAIN_MS};
 * at most {@link MAX_LIVE_PROGRAMS} run at once.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { LiveProgram } from "./session.ts";
import type { ProgramState } from "./types.ts";

/** How long an exited program's output and result stay readable. */
export const EXITED_RETAIN_MS = 10 * 60_000;
/** Interactive programs one runtime runs at once. */
export const MAX_LIVE_PROGRAMS = 64;

/** One held program, as listed. */
export interface ProgramInfo {
  /** The session's id. */
  id: string;
  /** The execution running the program. */
  executionId: string;
  /** The command it was started with. */
  cmd: string;
  /** The namespace it runs in. */
  namespace: string;
  /** When it started (ISO 8601). */
  startedAt: string;
  /** Whether it runs, and its exit status once it exited. */
  state: ProgramState;
}

interface Held {
  live: LiveProgram;
  cmd: string;
  namespace: string;
  startedAt: number;
  exitedAt?: number;
}

/** The held programs. */
export class ProgramRegistry {
  readonly #held = new Map<string, Held>();

  #sweep(now = Date.now()): void {
    for (const [id, h] of this.#held) {
      if (h.exitedAt !== undefined && now - h.exitedAt > EXITED_RETAIN_MS) this.#held.delete(id);
    }
  }

  /** Throws `limit_exceeded` when {@link MAX_LIVE_PROGRAMS} already run. */
  admit(): void {
    this.#sweep();
    const running = [...this.#held.values()].filter((h) => h.exitedAt === undefined).length;
    if (running >= MAX_LIVE_PROGRAMS) {
      throw new CordonError(
        "limit_exceeded",
        `${MAX_LIVE_PROGRAMS} interactive programs already run here; kill or close one first`,
      );
    }
  }

  /** Holds a started program. */
  add(live: LiveProgram, cmd: string, namespace: string): void {
    const held: Held = { live, cmd, namespace, startedAt: Date.now() };
    this.#held.set(live.id, held);
    live.done.then(() => held.exitedAt = Date.now());
  }

  /** The program `id` of `namespace` (any namespace when undefined); `not_found` otherwise. */
  get(id: string, namespace?: string): LiveProgram {
    this.#sweep();
    const h = this.#held.get(id);
    if (!h || (namespace !== undefined && h.namespace !== namespace)) {
      throw new CordonError("not_found", `This node holds no program session ${id}`);
    }
    return h.live;
  }

  /** Closes and forgets a program. */
  async close(id: string, namespace?: string): Promise<void> {
    const live = this.get(id, namespace);
    await live.close();
    this.#held.delete(id);
  }

  /** The held programs of `namespace` (all when undefined), newest first. */
  list(namespace?: string): ProgramInfo[] {
    this.#sweep();
    return [...this.#held.values()]
      .filter((h) => namespace === undefined || h.namespace === namespace)
      .sort((a, b) => b.startedAt - a.startedAt)
      .map((h) => ({
        id: h.live.id,
        executionId: h.live.executionId,
        cmd: h.cmd,
        namespace: h.namespace,
        startedAt: new Date(h.startedAt).toISOString(),
        state: h.live.state(),
      }));
  }

  /** Kills every running program (the runtime is closing). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#held.values()].map((h) => h.live.close().catch(() => {})));
    this.#held.clear();
  }
}
