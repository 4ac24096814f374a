/**
 * The decisions part of the runtime's API: approve, reject and resolve
 * waiting calls, roll an execution back, list what waits, expire what waited
 * too long. Each runs as an engine operation, so `close()` waits for it.
 *
 * @module
 */
import { checkNamespace } from "../common/namespace.ts";
import * as control from "./control.ts";
import type { Engine } from "./engine.ts";
import type { ExecuteResult, PendingAction } from "./types.ts";

/** The decisions part of the runtime's API. */
export interface ControlApi {
  /** Approves waiting calls and returns the next outcome (live, or by replay). */
  approve(executionId: string, options?: { seq?: number }): Promise<ExecuteResult>;
  /** Rejects waiting calls (they throw `rejected` in the script) and returns the next outcome. */
  reject(executionId: string, options?: { seq?: number; reason?: string }): Promise<ExecuteResult>;
  /** Supplies the value of a client-resolved call and returns the next outcome. */
  resolve(executionId: string, seq: number, value: unknown): Promise<ExecuteResult>;
  /** Reverts applied calls newest first and marks the execution `rolled_back`. */
  rollback(executionId: string): Promise<control.RollbackReport>;
  /** Every call waiting for a decision, across executions (of one namespace when given). */
  pending(options?: { namespace?: string }): Promise<PendingAction[]>;
  /** Rejects paused executions older than `maxAgeMs`; returns their ids. */
  expirePaused(options: { maxAgeMs: number }): Promise<string[]>;
}

/** Builds the decisions API over one engine; `assertOpen` throws once the runtime is closed. */
export function controlApi(engine: Engine, assertOpen: () => void): ControlApi {
  return {
    approve: async (
      id,
      o,
    ) => (assertOpen(), await engine.track(() => control.approve(engine, id, o))),
    reject: async (
      id,
      o,
    ) => (assertOpen(), await engine.track(() => control.reject(engine, id, o))),
    resolve: async (id, seq, value) => (
      assertOpen(), await engine.track(() => control.resolve(engine, id, seq, value))
    ),
    rollback: async (id) => (assertOpen(), await engine.track(() => control.rollback(engine, id))),
    pending: (o) =>
      control.pending(engine, o?.namespace === undefined ? undefined : checkNamespace(o.namespace)),
    expirePaused: (o) => control.expirePaused(engine, o),
  };
}
