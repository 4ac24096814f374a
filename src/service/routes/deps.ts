/**
 * What the routes are built from.
 *
 * @module
 */
import type { Runtime } from "../../engine/mod.ts";
import type { ActivityFeed } from "../requests/activity.ts";
import type { EventLog } from "../requests/event_log.ts";
import type { Gate } from "../requests/gate.ts";
import type { Idempotency } from "../requests/idempotency.ts";
import type { ApiKeys } from "../access/keys.ts";

/** The service's parts, shared by its routes. */
export interface ServiceDeps {
  runtime: Runtime;
  events: EventLog;
  /** Every execution's state changes, for `GET /v1/events`. */
  activity: ActivityFeed;
  keys: ApiKeys;
  /** Executions started without waiting (`wait: false`); shutdown lets them finish. */
  background: Set<Promise<unknown>>;
  /** Aborted when the server shuts down: open event streams end. */
  shutdown: AbortSignal;
  /** Admission of new runs. */
  gate: Gate;
  /** `Idempotency-Key` on POSTs: each request runs once per key. */
  idempotency: Idempotency;
  startedAt: number;
  version: string;
}
