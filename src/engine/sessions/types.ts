/**
 * The shapes of a live session: the record this process holds for each, and
 * what listing them shows.
 *
 * @module
 */
import type { SandboxChild } from "../../sandbox/child.ts";
import type { Workspace } from "../workspaces/workspace.ts";

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
