/**
 * The shapes of the executions part of the runtime's API: an execution as
 * listed and as read back whole, a page of its stored console lines, and
 * {@link ExecutionsApi} itself.
 *
 * @module
 */
import type { ExecutionStatus } from "../../store/executions.ts";
import type { ExecutionListener } from "./events.ts";
import type { CallRecord, Diagnostic, ExecutionMeta, LogEntry, PendingAction } from "./types.ts";

/** An execution as listed. */
export interface ExecutionSummary {
  /** The execution's id (what `saveSnippet(name, { executionId })` takes). */
  id: string;
  /** The execution's id, as every other result names it (the same as `id`). */
  executionId: string;
  /** The tenant it belongs to. */
  namespace: string;
  /** Where it is in its life: `running`, `paused`, or how it ended. */
  status: ExecutionStatus;
  /** When it was created, in ms since the epoch. */
  createdAt: number;
  /** When its status last changed, in ms since the epoch (paused ones expire by it). */
  updatedAt: number;
  /** When it ended, in ms since the epoch; absent while running or paused. */
  endedAt?: number;
  /** Children it has run in: 1, plus one per replay after its child was gone. */
  passes: number;
  /** The failure's code and message, when it ended in `error` or `rejected`. */
  error?: { code: string; message: string };
}

/**
 * Executions newest first, as an array (`runs[0].id` is the newest), that is also a page:
 * `items` holds the same entries and `nextCursor`, when there are more, is passed back as
 * `cursor` for the next page.
 */
export type ExecutionList = ExecutionSummary[] & {
  /** The same entries as the array, newest first. */
  items: ExecutionSummary[];
  /** Pass back as `cursor` for the next page; absent on the last one. */
  nextCursor?: string;
};

/** An execution with its code, outcome and whole call log. */
export interface ExecutionDetails extends ExecutionSummary {
  /** The code as it was sent. */
  code: string;
  /** The code's language when it is not TypeScript (as `meta.language` says). */
  language?: "python" | "bash";
  /** The input it was given. */
  input: unknown;
  /** What the code returned, once it completed. */
  result?: unknown;
  /** The connectors the runtime had when it started. */
  connectors: string[];
  /** The declaration hash when it started: which tool types the code was written against. */
  declarationHash: string;
  /** The unguessable reference its stored console lines are read by ({@link ExecutionsApi.readLogs}). */
  logRef: string;
  /** The W3C trace id the run belongs to (its `traceparent`'s, else its own), as `meta.traceId`. */
  traceId: string;
  /** The whole call log in `seq` order, each entry with its stored result. */
  calls: (CallRecord & { result?: unknown })[];
  /** Calls still waiting for a decision. */
  pending: PendingAction[];
  /**
   * The type check's findings when they came after the result (its `meta.typecheck` was
   * `pending`); absent until that check finishes, and for results that carried them.
   */
  diagnostics?: Diagnostic[];
  /** With `diagnostics`: `{ typecheck: "done", typecheckMs }`. */
  meta?: Pick<ExecutionMeta, "typecheck" | "typecheckMs">;
}

/** A page of stored console lines. */
export interface LogPage {
  /** The execution the lines belong to. */
  executionId: string;
  /** The namespace of that execution. */
  namespace: string;
  /** When that execution started (ms since the epoch): a line was written at `startedAt + atMs`. */
  startedAt: number;
  /** The lines in the order written, each with its `seq` in the store. */
  items: (LogEntry & { seq: number })[];
  /** Pass back as `cursor` for the next page. */
  nextCursor?: string;
  /** The lines were deleted by log retention (`logs.retainMs`); the page is empty. */
  expired?: true;
}

/** The executions part of the runtime's API: listing, reading, deleting, logs, live events. */
export interface ExecutionsApi {
  /**
   * Executions newest first (of one namespace when given), one page of `limit` (default 50):
   * an array that also carries `items` and `nextCursor`.
   */
  executions(
    options?: { status?: ExecutionStatus; namespace?: string; limit?: number; cursor?: string },
  ): Promise<ExecutionList>;
  /** One execution with its call log; `undefined` if unknown. */
  execution(executionId: string): Promise<ExecutionDetails | undefined>;
  /**
   * Deletes an execution with its call log and console lines; false if unknown. Throws
   * `invalid_state` while it runs.
   */
  deleteExecution(executionId: string): Promise<boolean>;
  /**
   * An execution's stored console lines, paged; `not_found` for an unknown reference, or one of
   * another namespace when `namespace` is given.
   */
  readLogs(
    options: { logRef: string; cursor?: string; limit?: number; namespace?: string },
  ): Promise<LogPage>;
  /**
   * Listens to live events of every execution this runtime runs in this process; returns the
   * function that stops listening.
   */
  subscribe(listener: ExecutionListener): () => void;
}
