/**
 * Sessions: a child and its heap kept between executions, with the
 * declarations of script-form code carried over, its recovery journal,
 * and the sessions part of the runtime's API.
 *
 * @module
 */
export { DEFAULT_SESSIONS, type SessionSettings } from "./settings.ts";
export type { SessionInfo } from "./types.ts";
export { type RecoveryPage, type SessionsApi } from "./api.ts";
export type {
  CodeModeRecoveryClassification,
  CodeModeRecoveryEntry,
  RecoveryDiagnostic,
  RecoveryEntry,
} from "./recovery.ts";
