/**
 * The execution core: a request admitted, recorded and run pass by pass in
 * a sandbox child, every call through the durable journal, and the control
 * that moves a run on (approve, reject, resolve, rollback, expiry, recovery
 * of runs whose lease lapsed). It knows nothing of the capabilities that
 * extend it; they reach a run through {@link EngineParts}.
 *
 * @module
 */
export {
  approve,
  expirePaused,
  pending,
  recoverInterrupted,
  reject,
  resolve,
  rollback,
  type RollbackReport,
} from "./control.ts";
export { type ControlApi, controlApi } from "./control_api.ts";
export {
  EventHub,
  type ExecutionEvent,
  type ExecutionListener,
  type MoveWatch,
  watchMoves,
} from "./events.ts";
export { executionsApi, readLogPage } from "./records.ts";
export type {
  ExecutionDetails,
  ExecutionList,
  ExecutionsApi,
  ExecutionSummary,
  LogPage,
} from "./records_types.ts";
export { Engine } from "./engine.ts";
export type { DurabilitySettings, EngineParts } from "./parts.ts";
export { classifyExit, encodedBytes } from "./exit.ts";
export { CallJournal, canonicalJson, durableJson, type JournalDecision } from "./journal.ts";
export {
  configureLimits,
  DEFAULT_LIMITS,
  DEFAULT_MAX_LIMITS,
  LIMIT_NAMES,
  type Limits,
  resolveLimits,
} from "./limits.ts";
export {
  type Decision,
  type Outcome,
  Pass,
  type PassEvent,
  type PassOptions,
  type ScriptRequests,
} from "./pass.ts";
export type {
  CallRecord,
  CompletedResult,
  Diagnostic,
  ErrorResult,
  ExecuteHooks,
  ExecuteRequest,
  ExecuteResult,
  ExecutionMeta,
  ExecutionPolicy,
  LogEntry,
  PausedResult,
  PendingAction,
} from "./types.ts";
