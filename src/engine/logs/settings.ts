/**
 * The runtime's console-log settings: the redactor its executions' lines go
 * through, and how long stored lines of ended executions are kept.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { LogStore } from "../../store/logs.ts";
import { createRedactor, type Redact } from "./redact.ts";
import type { HttpConnectorOptions } from "../../connectors/builtin/mod.ts";

/**
 * How long console lines of an ended execution are kept: a week covers debugging last
 * Friday's run on Monday, and console output (which may hold personal data no pattern
 * recognises) should not pile up for longer than someone is likely to read it.
 */
export const DEFAULT_LOG_RETAIN_MS = 7 * 24 * 60 * 60_000;

/** Console log retention. */
export interface LogOptions {
  /**
   * Lines of executions that ended longer ago than this (ms) are deleted by a periodic job
   * that runs every `durability.expireEveryMs`; default {@link DEFAULT_LOG_RETAIN_MS},
   * `Infinity` keeps them.
   */
  retainMs?: number;
}

/** What console lines are redacted of, besides the built-in credential shapes and e-mails. */
export interface RedactOptions {
  /**
   * Secret values the host holds that the runtime is not given otherwise: OpenAPI `auth`
   * values, MCP `headers`/`env` values. The `http` built-in's `secrets` are added by the
   * runtime. Values shorter than 6 characters are ignored (they occur in ordinary text).
   */
  values?: string[];
  /** More shapes; each match becomes `[redacted:secret]`. Keep them linear in time. */
  patterns?: RegExp[];
}

/**
 * The redactor for a runtime's console lines: the built-in shapes, the `http` built-in's secret
 * header values, and `options.redact`.
 */
export function runtimeRedactor(
  options: { builtins?: { http?: HttpConnectorOptions }; redact?: RedactOptions },
): Redact {
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
export function logRetainMs(options: LogOptions | undefined): number {
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
