/**
 * The sessions half of the {@link Runtime} API: listing and closing this
 * process's sessions, and reading a session's recovery history.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { SessionStore } from "../../store/sessions.ts";
import { checkNamespace } from "../common/namespace.ts";
import { checkRef, pageLimit, seqCursor } from "../common/paging.ts";
import type { SessionInfo, SessionManager } from "./manager.ts";
import { type RecoveryEntry, toRecoveryEntry } from "./recovery.ts";

/**
 * A page of a session's recovery history: the Code Mode API's `ReadCodeModeRecoveryResult`
 * (`entries`, `nextCursor`), with the session it belongs to and whether it is still alive. A
 * script's `codemode.readRecovery()` / `caplets.debug.readRecovery()` gets the same page.
 */
export interface RecoveryPage {
  /** The session the history belongs to. */
  sessionId: string;
  /** The session's namespace. */
  namespace: string;
  /** `active` while this or another process holds it; `ended` once closed, expired or lost. */
  status: "active" | "ended";
  /** Why it ended: `closed`, `expired`, `evicted`, `timeout`, `crashed`, `incompatible`, … */
  endReason?: string;
  /** Journal entries, oldest first. */
  entries: RecoveryEntry[];
  /** Pass back as `cursor` for the next page. */
  nextCursor?: string;
}

/** Session methods of the runtime. */
export interface SessionsApi {
  /** Sessions this process holds (sessions are node-local), of one namespace when given. */
  sessions(options?: { namespace?: string }): SessionInfo[];
  /** Closes a session; false if this process holds no such session. */
  closeSession(sessionId: string, options?: { namespace?: string }): Promise<boolean>;
  /**
   * A session's journal, oldest first: each execution's redacted code, outcome, diagnostics,
   * the names it declared, a summary and its `recoveryClassification`. `recoveryRef` is the
   * capability returned when the session was created; `not_found` for an unknown one.
   */
  readRecovery(
    options: { recoveryRef: string; cursor?: string; limit?: number; namespace?: string },
  ): Promise<RecoveryPage>;
}

/**
 * One page of a session's recovery history, found by its `recoveryRef`. With `namespace`, a
 * session of another namespace reads as `not_found`, exactly like an unknown ref (what a
 * script's `codemode.readRecovery()` gets).
 */
export async function readRecoveryPage(
  store: SessionStore,
  o: { recoveryRef: string; cursor?: string; limit?: number },
  namespace?: string,
): Promise<RecoveryPage> {
  const ref = checkRef(o?.recoveryRef, "readRecovery() needs a session's recoveryRef");
  const limit = pageLimit(o.limit, "A recovery");
  const after = seqCursor(o.cursor, "recovery");
  const row = await store.byRecoveryRef(ref);
  if (!row || (namespace !== undefined && row.namespace !== namespace)) {
    throw new CordonError("not_found", "There is no session under this recoveryRef");
  }
  const entries = await store.journal(row.id, after, limit + 1);
  const page: RecoveryPage = {
    sessionId: row.id,
    namespace: row.namespace,
    status: row.status,
    entries: entries.slice(0, limit).map(toRecoveryEntry),
  };
  if (row.endReason) page.endReason = row.endReason;
  if (entries.length > limit) page.nextCursor = String(entries[limit - 1].seq);
  return page;
}

/** Builds the session methods. */
export function sessionsApi(sessions: SessionManager, store: SessionStore): SessionsApi {
  return {
    sessions: (o) =>
      sessions.list(o?.namespace === undefined ? undefined : checkNamespace(o.namespace)),
    closeSession: (id, o) =>
      sessions.close(
        String(id),
        o?.namespace === undefined ? undefined : checkNamespace(o.namespace),
      ),
    readRecovery: (o) => readRecoveryPage(store, o, o?.namespace),
  };
}
