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
import type { SandboxChild } from "../../sandbox/child.ts";
import type { RecoveryClass, RecoveryEntry, SessionStore } from "../../store/sessions.ts";
import type { Workspace } from "../workspaces/workspace.ts";

/** Session settings, each with its reason. */
export interface SessionSettings {
  /** An idle session is closed after this long (ms). */
  idleTtlMs: number;
  /** Live sessions per runtime; past it the least recently used idle one is closed. */
  maxSessions: number;
  /**
   * Live sessions per namespace (tenant); past it that namespace's least recently used idle
   * session is closed, never another namespace's. At most {@link maxSessions}.
   */
  maxSessionsPerNamespace: number;
  /** Journal entries kept per session (the newest). */
  journalEntries: number;
  /** Code kept per journal entry, in characters. */
  maxJournalCodeChars: number;
  /** Ended sessions' journals are deleted after this long (ms). */
  retainMs: number;
}

/** Session defaults. */
export const DEFAULT_SESSIONS: Readonly<SessionSettings> = Object.freeze({
  // Long enough for an agent to think between steps; short enough not to hoard children.
  idleTtlMs: 30 * 60_000,
  // Each holds a child (~10 MiB idle, up to its memory limit): a bounded cost.
  maxSessions: 16,
  // Half the host: one tenant alone cannot hold every session, so a second always gets some.
  maxSessionsPerNamespace: 8,
  // A working session rarely needs more than the last couple of hundred steps to rebuild.
  journalEntries: 200,
  // Enough for the scripts a model writes; longer ones are cut, and say so.
  maxJournalCodeChars: 8_000,
  // A week to look back, then it is deleted, not hidden.
  retainMs: 7 * 24 * 60 * 60_000,
});

/** A session this process holds. */
export interface LiveSession {
  id: string;
  namespace: string;
  recoveryRef: string;
  declarationHash: string;
  /** The policy its child was started with; later executions must match it. */
  policyKey: string;
  child?: SandboxChild;
  busy: boolean;
  lastUsedAt: number;
  /** Executions run so far (0 before the first ends). */
  executions: number;
  /** The workspace its executions share, when it was started with one. */
  workspace?: Workspace;
}

/** A session as listed. */
export interface SessionInfo {
  /** Its id, for `execute({ sessionId })`. */
  sessionId: string;
  /** The namespace it belongs to. */
  namespace: string;
  /** An execution runs in it now. */
  busy: boolean;
  /** Executions it has run. */
  executions: number;
  /** When it was last used (ms since the epoch). */
  lastUsedAt: number;
  /** When it will be closed if left idle. */
  expiresAt: number;
}

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

  /** Live sessions of `namespace`. */
  #count(namespace: string): number {
    let n = 0;
    for (const s of this.#live.values()) if (s.namespace === namespace) n++;
    return n;
  }

  /**
   * The session to close so `namespace` may open one, undefined when none need close; throws
   * `limit_exceeded` when one must but every candidate is busy. A namespace at its own cap
   * gives up its least recently used idle session. When the host is full, the victim is the
   * least recently used idle session of the namespace holding the most, and only if that
   * namespace holds more than the opener: a tenant never loses a session to one holding as
   * many as it does or more, so every tenant keeps a fair share.
   */
  #victim(namespace: string): LiveSession | undefined {
    const { maxSessions } = this.settings;
    const perNamespace = Math.min(this.settings.maxSessionsPerNamespace, maxSessions);
    const mine = this.#count(namespace);
    const idle = [...this.#live.values()].filter((s) => !s.busy);
    if (mine >= perNamespace) {
      const own = idle.filter((s) => s.namespace === namespace)
        .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
      if (own) return own;
      throw new CordonError(
        "limit_exceeded",
        `All ${mine} sessions of namespace "${namespace}" are busy and it may hold at most ${perNamespace}; close one or try again when one is free`,
        { details: { maxSessionsPerNamespace: perNamespace } },
      );
    }
    if (this.#live.size < maxSessions) return undefined;
    const counts = new Map<string, number>();
    for (const s of this.#live.values()) {
      counts.set(s.namespace, (counts.get(s.namespace) ?? 0) + 1);
    }
    const victim = idle
      .filter((s) => s.namespace === namespace || counts.get(s.namespace)! > mine)
      .sort((a, b) =>
        counts.get(b.namespace)! - counts.get(a.namespace)! || a.lastUsedAt - b.lastUsedAt
      )[0];
    if (victim) return victim;
    throw new CordonError(
      "limit_exceeded",
      `All ${maxSessions} sessions are busy or held by namespaces with no more than this one's ${mine}; try again when one is free`,
      { details: { maxSessions } },
    );
  }

  /**
   * Opens a new session (busy with its first execution), closing the session that makes room
   * for it, if one must close: see {@link SessionSettings.maxSessionsPerNamespace}.
   */
  async open(namespace: string, declarationHash: string, policyKey: string): Promise<LiveSession> {
    const victim = this.#victim(namespace);
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
        `Session ${id} keeps the network policy and heap size it was created with`,
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
  async record(s: LiveSession, entry: Omit<RecoveryEntry, "seq">): Promise<void> {
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

/** How an execution's effects are judged, from what it actually did. */
export function classify(
  outcome: { ok: boolean; code?: string },
  calls: { kind: string; readOnly: boolean }[],
): RecoveryClass {
  if (calls.some((c) => c.kind === "tool" && !c.readOnly)) return "side_effecting";
  const crashed = !outcome.ok && /^(sandbox_|interrupted|protocol_error|spawn_failed)/.test(
    outcome.code ?? "",
  );
  if (crashed) return "unknown";
  // Declarations, pure computation and read-only calls: safe to run again to rebuild state.
  return "setup_like";
}
