/**
 * Keeps at most one live session to a server, opened lazily: when a call
 * needs the server and there is none (never started, or the last one was
 * lost), one attempt is made and every caller meanwhile shares it. Nothing
 * runs in the background: a dead server stays dead until someone asks.
 *
 * After a loss the next attempt waits {@link RECONNECT_DELAY_MS}; each
 * failed attempt doubles the wait, up to {@link RECONNECT_BACKOFF_MAX_MS}.
 *
 * @module
 */
import { unavailable } from "./errors.ts";
import type { McpTarget } from "./options.ts";
import type { Implementation } from "./sdk.ts";
import { McpSession } from "./session.ts";
import { abortable, sleep } from "./signals.ts";

/**
 * Wait after a server died before the next connection: a server that
 * crashes at start-up is restarted at most ten times a second, and a caller
 * barely notices the delay.
 */
export const RECONNECT_DELAY_MS = 100;

/** Longest wait between failed connection attempts: a server back up is found within 5 s. */
export const RECONNECT_BACKOFF_MAX_MS = 5_000;

/** How to open sessions and what to do with a new one. */
export interface SessionKeeperOptions {
  connector: string;
  target: McpTarget;
  startupTimeoutMs: number;
  /** Runs on each new session before callers get it (lists its tools); a throw fails the attempt. */
  prepare(session: McpSession): Promise<void>;
  /** The current session's server said its tool list changed. */
  toolsChanged(): void;
}

/** One connector's connection to its server, across reconnects. */
export class SessionKeeper {
  readonly #options: SessionKeeperOptions;
  readonly #lifetime = new AbortController();
  #session?: McpSession;
  #connecting?: Promise<McpSession>;
  #server?: Implementation;
  #failures = 0;
  #retryAt = 0;
  #problem?: string;

  constructor(options: SessionKeeperOptions) {
    this.#options = options;
  }

  /** The live session, if there is one (being prepared included). */
  get current(): McpSession | undefined {
    return this.#session?.alive ? this.#session : undefined;
  }

  /** Aborted by `close()`. */
  get signal(): AbortSignal {
    return this.#lifetime.signal;
  }

  /** What went wrong last, while no session is up. */
  get problem(): string | undefined {
    return this.current ? undefined : this.#problem;
  }

  /** The server's name and version, from the latest `initialize`. */
  get server(): Implementation | undefined {
    return this.#server;
  }

  /**
   * The live session, connecting when there is none. Fails with
   * `connector_unavailable` named after `what`, or with `signal`'s reason.
   */
  session(what: string, signal?: AbortSignal): Promise<McpSession> {
    const current = this.current;
    if (current) return Promise.resolve(current);
    if (this.#lifetime.signal.aborted) {
      return Promise.reject(unavailable(this.#options.connector, what, "it was closed"));
    }
    if (!this.#connecting) {
      const connecting = this.#connect();
      this.#connecting = connecting;
      const clear = () => {
        if (this.#connecting === connecting) this.#connecting = undefined;
      };
      connecting.then(clear, clear);
    }
    return abortable(this.#connecting, signal).catch((err) => {
      if (signal?.aborted && err === signal.reason) throw err;
      throw unavailable(this.#options.connector, what, (err as Error).message);
    });
  }

  /** Closes the session and refuses new ones; idempotent. */
  async close(): Promise<void> {
    this.#lifetime.abort();
    await this.#connecting?.catch(() => {});
    const session = this.#session;
    this.#session = undefined;
    await session?.close();
  }

  /** Opens and prepares a session; throws an `Error` whose message is the reason. */
  async #connect(): Promise<McpSession> {
    const lifetime = this.#lifetime.signal;
    const wait = this.#retryAt - Date.now();
    if (wait > 0) await sleep(wait, lifetime);
    let session: McpSession | undefined;
    try {
      lifetime.throwIfAborted();
      session = await McpSession.open(this.#options.target, {
        toolsChanged: (s) => {
          if (s === this.#session) this.#options.toolsChanged();
        },
        lost: (s, reason) => {
          if (s !== this.#session) return;
          this.#session = undefined;
          this.#problem = reason;
          this.#retryAt = Date.now() + RECONNECT_DELAY_MS;
        },
      }, { timeoutMs: this.#options.startupTimeoutMs, signal: lifetime });
      // Current before it is prepared, so a list change announced meanwhile is not missed.
      this.#session = session;
      await this.#options.prepare(session);
      lifetime.throwIfAborted();
      if (!session.alive) throw new Error(session.lostReason);
    } catch (err) {
      if (session) {
        if (this.#session === session) this.#session = undefined;
        await session.close();
      }
      if (lifetime.aborted) throw new Error("it was closed");
      this.#failures++;
      this.#retryAt = Date.now() +
        Math.min(RECONNECT_DELAY_MS * 2 ** this.#failures, RECONNECT_BACKOFF_MAX_MS);
      this.#problem = err instanceof Error ? err.message : String(err);
      throw new Error(this.#problem);
    }
    this.#failures = 0;
    this.#problem = undefined;
    this.#server = session.info.server;
    return session;
  }
}
