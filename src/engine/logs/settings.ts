/**
 * The runtime's console-log settings: the redactor its executions' lines go
 * through, and how long stored lines of ended executions are kept.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { LogStore } from "../../store/logs.ts";
import { createRedactor, type Redact } from "./redact.ts";
import { DEFAULT_LOG_RETAIN_MS, type RuntimeOptions } from "../runtime/types.ts";

/**
 * The redactor for a runtime's console lines: the built-in shapes, the `http` built-in's secret
 * header values, and `options.redact`.
 */
export function runtimeRedactor(options: RuntimeOptions): Redact {
  const secrets = options.builtins?.http?.secrets ?? {};
  const values = [
    ...Object.values(secrets).flatMap((headers) => Object.values(headers ?? {})),
    ...(options.redact?.values ?? []),
  ];
  if (values.some((v) => typeof v !== "string")) {
    throw new CordonError("invalid_request", "redact.values must be strings");
  }
  return createRedactor({ values, patterns: options.redact?.patterns });
}

/** `logs.retainMs`, checked: a positive number of ms, `Infinity` to keep lines forever. */
export function logRetainMs(options: RuntimeOptions["logs"]): number {
  const retainMs = options?.retainMs ?? DEFAULT_LOG_RETAIN_MS;
  if (typeof retainMs !== "number" || !(retainMs > 0)) {
    throw new CordonError(
      "invalid_request",
      `logs.retainMs must be a positive number of ms (Infinity keeps lines); got ${retainMs}`,
    );
  }
  return retainMs;
}

/** Deletes the lines of executions that ended more than `olderThanMs` ago; returns how many. */
export function pruneLogs(store: LogStore, options: { olderThanMs: number }): Promise<number> {
  const olderThanMs = options?.olderThanMs;
  if (typeof olderThanMs !== "number" || !(olderThanMs >= 0)) {
    throw new CordonError("invalid_request", "pruneLogs() needs olderThanMs ≥ 0");
  }
  if (olderThanMs === Infinity) return Promise.resolve(0);
  return store.prune(Date.now() - olderThanMs);
}
