/**
 * The decisions part of the runtime's API: approve, reject and resolve
 * waiting calls, roll an execution back, list what waits, expire what waited
 * too long. Each runs as an engine operation, so `close()` waits for it.
 *
 * `pendingExecutions()` and `resolveExecution()` are the names the
 * client-resolved tools design uses; they are the same functions as
 * `pending()` and `resolve()`.
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
  /**
   * Supplies the result of a client-resolved call (`resolution: "client"`): the call's log
   * entry becomes `applied` with it, the run continues, and a replay answers with it.
   */
  resolveExecution(executionId: string, seq: number, result: unknown): Promise<ExecuteResult>;
  /** The same function as {@link ControlApi.resolveExecution}. */
  resolve(executionId: string, seq: number, value: unknown): Promise<ExecuteResult>;
  /** Reverts applied calls newest first and marks the execution `rolled_back`. */
  rollback(executionId: string): Promise<control.RollbackReport>;
  /**
   * Every call waiting for a client's value or a person's decision, across executions (of one
   * namespace when given), each saying what it waits for (`resolution`) and whether a client
   * listens for it now (`clientConnected`).
   */
  pendingExecutions(options?: { namespace?: string }): Promise<PendingAction[]>;
  /** The same function as {@link ControlApi.pendingExecutions}. */
  pending(options?: { namespace?: string }): Promise<PendingAction[]>;
  /** Rejects paused executions older than `maxAgeMs`; returns their ids. */
  expirePaused(options: { maxAgeMs: number }): Promise<string[]>;
  /**
   * Counts a client as listening for `executionId` (its pending calls say
   * `clientConnected: true`) until the returned function is called. The service holds one
   * while an event stream for the execution is open; node-local, like the stream.
   */
  watchExecution(executionId: string): () => void;
}

/** Builds the decisions API over one engine; `assertOpen` throws once the runtime is closed. */
export function controlApi(engine: Engine, assertOpen: () => void): ControlApi {
  const resolve: ControlApi["resolve"] = async (id, seq, value) => (
    assertOpen(), await engine.track(() => control.resolve(engine, id, seq, value))
  );
  const pending: ControlApi["pending"] = (o) =>
    control.pending(engine, o?.namespace === undefined ? undefined : checkNamespace(o.namespace));
  return {
    approve: async (
      id,
      o,
    ) => (assertOpen(), await engine.track(() => control.approve(engine, id, o))),
    reject: async (
      id,
      o,
    ) => (assertOpen(), await engine.track(() => control.reject(engine, id, o))),
    resolveExecution: resolve,
    resolve,
    rollback: async (id) => (assertOpen(), await engine.track(() => control.rollback(engine, id))),
    pendingExecutions: pending,
    pending,
    expirePaused: (o) => control.expirePaused(engine, o),
    watchExecution: (id) => engine.parts.events.watch(id),
  };
}
