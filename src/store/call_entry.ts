/**
 * One entry of the durable call log, as the store reads and writes it.
 *
 * @module
 */
import type { ErrorInfo } from "../errors.ts";

/** A call-log entry's state. */
export type CallState = "executing" | "applied" | "pending" | "error" | "rejected" | "reverted";

/** What a pending entry waits for. */
export type PendingNeed = "approval" | "value";

/** One entry. */
export interface CallEntry {
  executionId: string;
  seq: number;
  connector: string;
  tool: string;
  args: unknown;
  state: CallState;
  /** `tool` for tool calls, `step` for `codemode.step` values. */
  kind: "tool" | "step";
  result?: unknown;
  error?: ErrorInfo;
  needs?: PendingNeed;
  decision?: "approved" | "rejected" | "resolved";
  startedAt: number;
  endedAt?: number;
}
