/**
 * What a runtime does on its own while it is open: a heartbeat (store
 * health, idle sessions, lease renewal, recovery of runs whose lease lapsed
 * elsewhere) and a slower sweep (expiry of paused runs, log and execution
 * retention, unused workspaces, the session store).
 *
 * @module
 */
import type { Db } from "../../store/client.ts";
import * as control from "../execution/control.ts";
import type { Engine } from "../execution/engine.ts";
import { pruneLogs } from "../logs/settings.ts";
import type { SessionManager } from "../sessions/manager.ts";
import { sweepWorkspaces } from "../workspaces/workspace.ts";
import { applyRetention } from "./retention.ts";
import type { RuntimeSettings } from "./settings.ts";

/** Starts the heartbeat and the sweep; returns the function that stops both. */
export function startUpkeep(
  engine: Engine,
  db: Db,
  sessions: SessionManager,
  settings: RuntimeSettings,
  workspaceRoot: string,
): () => void {
  const { durability } = settings;
  const heartbeat = setInterval(async () => {
    // A store that lost its file fails health (and every statement) within a beat, traffic
    // or not.
    db.health();
    sessions.sweep().catch(() => {});
    try {
      await engine.parts.executions.renewLeases(engine.nodeId, Date.now() + durability.leaseMs);
      await control.recoverInterrupted(engine);
    } catch {
      // The store is unreachable for a moment; the next beat tries again.
    }
  }, Math.max(10, Math.floor(durability.leaseMs / 3)));
  const sweep = setInterval(() => {
    control.expirePaused(engine, { maxAgeMs: durability.expireAfterMs }).catch(() => {});
    pruneLogs(engine.parts.logs, { olderThanMs: settings.logRetainMs }).catch(() => {});
    applyRetention(db, settings.retention).catch(() => {});
    sweepWorkspaces(workspaceRoot, settings.workspaceRetainMs).catch(() => {});
    sessions.pruneStore().catch(() => {});
  }, durability.expireEveryMs);
  return () => {
    clearInterval(heartbeat);
    clearInterval(sweep);
  };
}
