/**
 * The settings of live sessions (how long one may idle, how many a runtime
 * and a namespace may hold, how much of its journal is kept) and their
 * defaults, each with its reason.
 *
 * @module
 */

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
