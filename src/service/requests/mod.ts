/**
 * What happens around a route: the admission gate (running and queued
 * executions, fair across namespaces), `Idempotency-Key` replays, and the
 * per-execution event logs server-sent events read.
 *
 * @module
 */
export { EventLog, type EventLogOptions, type EventRecord, type LoggedEvent } from "./event_log.ts";
export { DEFAULT_MAX_QUEUED, DEFAULT_MAX_RUNNING, Gate, NAMESPACE_QUEUE_SHARE } from "./gate.ts";
export { Idempotency, IDEMPOTENCY_KEY_TTL_MS, type IdempotentRequest } from "./idempotency.ts";
