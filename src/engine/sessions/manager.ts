/**
 * Live sessions: a child whose heap outlives one execution, so an agent can
 * keep working in it. Sessions are node-local (the child lives in this
 * process); what each execution did is journaled in the store, so a lost
 * session can be rebuilt from its recovery history.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { newId, newSecret } from "../../ids.ts";
import type { JournalEntry, SessionStore } from "../../store/sessions.ts";
import { chooseVictim } from "./eviction.ts";
import type { SessionSettings } from "./settings.ts";
import type { LiveSession, SessionInfo } from "./types.ts";

export { classify } from "./classify.ts";
export { DEFAULT_SESSIONS, type SessionSettings } from "./settings.ts";
export type { LiveSession, SessionInfo } from "./types.ts";

function notFound(id: string, why: string): CordonError {
  return new CordonError("session_not_found", `Session ${id} ${why}`, {
    details: { sessionId: id },
  });
}

/** The sessions of one runtime. */
export class SessionManager {
  readonly #live = new Map<string, LiveSession>();
  readonly #store: SessionStore;
  readonly #nodeId: string;
  readonly settings: SessionSettings;

  /** Runs when a session ends (its workspace is removed there). */
  onDispose?: (s: LiveSession) => Promise<void>;

  constructor(store: SessionStore, nodeId: string, settings: SessionSettings) {
    this.#store = store;
    this.#nodeId = nodeId;
    this.settings = settings;
  }

  /** A session this process holds, without taking it. */
  peek(id: string): LiveSession | undefined {
    return this.#live.get(id);
  }

  /**
   * Opens a new session (busy with its first execution), closing the session that makes room
   * for it, if one must close: see {@link SessionSettings.maxSessionsPerNamespace}.
   */
  async open(namespace: string, declarationHash: string, policyKey: string): Promise<LiveSession> {
    const victim = chooseVictim(this.#live, namespace, this.settings);
    // The victim leaves and the new session takes its place before anything is awaited, so
    // opens racing each other cannot all see room and overshoot the caps.
    const evicted = victim ? this.dispose(victim, "evicted") : undefined;
    const now = Date.now();
    const s: LiveSession = {
      id: newId("ses"),
      namespace,
      recoveryRef: newSecret("rec"),
      declarationHash,
      policyKey,
      busy: true,
      lastUsedAt: now,
      executions: 0,
    };
    this.#live.set(s.id, s);
    try {
      await evicted;
      await this.#store.create({
        id: s.id,
        namespace,
        recoveryRef: s.recoveryRef,
        declarationHash,
        nodeId: this.#nodeId,
        createdAt: now,
      });
    } catch (err) {
      this.#live.delete(s.id);
      throw err;
    }
    return s;
  }

  /** Takes an existing session for an execution; fails before any code runs. */
  async acquire(
    id: string,
    namespace: string,
    declarationHash: string,
    policyKey: string,
  ): Promise<LiveSession> {
    const s = this.#live.get(id);
    if (!s || s.namespace !== namespace) {
      throw notFound(
        id,
        "is unknown, expired or held by another process (sessions are node-local)",
      );
    }
    if (s.child && !s.child.alive) {
      // Its child died while paused (released) or idle.
      await this.dispose(s, "crashed");
      throw notFound(id, "lost its sandbox");
    }
    if (!s.busy && Date.now() - s.lastUsedAt > this.settings.idleTtlMs) {
      await this.dispose(s, "expired");
      throw notFound(id, "expired after being idle");
    }
    if (s.busy) {
      throw new CordonError("session_busy", `Session ${id} is running another execution`, {
        details: { sessionId: id },
      });
    }
    if (s.declarationHash !== declarationHash) {
      await this.dispose(s, "incompatible");
      throw notFound(id, "was made with other tool declarations; start a new session");
    }
    if (s.policyKey !== policyKey) {
      throw new CordonError(
        "invalid_request",
        `Session ${id} keeps the network policy, heap size and language it was created with`,
      );
    }
    s.busy = true;
    s.lastUsedAt = Date.now();
    return s;
  }

  /** An execution in `s` ended: the session stays (idle) if its child did, else it ends. */
  async release(s: LiveSession, keptChild: boolean, reason = "crashed"): Promise<void> {
    s.busy = false;
    s.executions++;
    s.lastUsedAt = Date.now();
    if (!keptChild || !s.child?.alive) await this.dispose(s, reason);
  }

  /** Writes one execution's journal entry. */
  async record(s: LiveSession, entry: Omit<JournalEntry, "seq" | "logsStored">): Promise<void> {
    const max = this.settings.maxJournalCodeChars;
    const truncated = entry.code.length > max;
    await this.#store.append(
      s.id,
      {
        ...entry,
        code: truncated ? entry.code.slice(0, max) : entry.code,
        codeTruncated: truncated,
      },
      this.settings.journalEntries,
    );
  }

  /** Closes a session: its child is killed and its row ended (the journal stays). */
  async dispose(s: LiveSession, reason: string): Promise<void> {
    if (this.#live.get(s.id) !== s) return;
    this.#live.delete(s.id);
    s.child?.kill();
    await this.onDispose?.(s).catch(() => {});
    await this.#store.end(s.id, reason).catch(() => {});
  }

  /** Ends a session by id (its paused execution lost its sandbox). */
  async end(id: string, reason: string): Promise<void> {
    const s = this.#live.get(id);
    if (s) await this.dispose(s, reason);
  }

  /** Closes a session by id; false if this process holds no such session. */
  async close(id: string, namespace?: string): Promise<boolean> {
    const s = this.#live.get(id);
    if (!s || (namespace !== undefined && s.namespace !== namespace)) return false;
    if (s.busy) {
      throw new CordonError("session_busy", `Session ${id} is running an execution`);
    }
    await this.dispose(s, "closed");
    return true;
  }

  /** Closes sessions idle past their TTL or whose child died (in memory only); returns their ids. */
  async sweep(now = Date.now()): Promise<string[]> {
    const gone: string[] = [];
    for (const s of [...this.#live.values()]) {
      if (s.child && !s.child.alive) {
        await this.dispose(s, "crashed");
        gone.push(s.id);
      } else if (!s.busy && now - s.lastUsedAt > this.settings.idleTtlMs) {
        await this.dispose(s, "expired");
        gone.push(s.id);
      }
    }
    return gone;
  }

  /**
   * The store's side, on the slow timer: rows of sessions no process uses any more are ended,
   * and journals past retention deleted.
   */
  async pruneStore(now = Date.now()): Promise<void> {
    await this.#store.endStale(now - this.settings.idleTtlMs);
    await this.#store.prune(now - this.settings.retainMs);
  }

  list(namespace?: string): SessionInfo[] {
    return [...this.#live.values()]
      .filter((s) => namespace === undefined || s.namespace === namespace)
      .map((s) => ({
        sessionId: s.id,
        namespace: s.namespace,
        busy: s.busy,
        executions: s.executions,
        lastUsedAt: s.lastUsedAt,
        expiresAt: s.lastUsedAt + this.settings.idleTtlMs,
      }));
  }

  async closeAll(reason: string): Promise<void> {
    for (const s of [...this.#live.values()]) await this.dispose(s, reason);
  }
}
