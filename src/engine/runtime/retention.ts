/**
 * Execution retention for a runtime: the checked settings, and the rules a
 * library caller or the runtime's periodic job hands to the store.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { Db } from "../../store/client.ts";
import { pruneExecutions as pruneStore, type PruneRules } from "../../store/retention.ts";

/**
 * How long an ended execution (its code, result, call log and console lines) is kept: a
 * month covers looking back over the last billing period or incident, and an execution log
 * that grows without end fills the disk of a busy service (then nothing more is recorded).
 */
export const DEFAULT_EXECUTION_RETAIN_MS = 30 * 24 * 60 * 60_000;

/**
 * Execution retention, applied every `durability.expireEveryMs` (hourly by default). Running
 * and paused executions are never deleted; an ended one goes with its call log and console
 * lines, in one transaction.
 */
export interface RetentionOptions {
  /**
   * Ended executions are deleted this long (ms) after they ended; default
   * {@link DEFAULT_EXECUTION_RETAIN_MS} (30 days), `Infinity` keeps them.
   */
  executionsMaxAgeMs?: number;
  /**
   * Each namespace keeps at most this many ended executions, the newest; default `Infinity`
   * (age alone decides).
   */
  executionsMaxPerNamespace?: number;
}

/** What `pruneExecutions()` deletes; every rule is optional, at least one is needed. */
export interface PruneExecutionsOptions {
  /** Keep the newest this many ended executions in all. */
  keep?: number;
  /** Keep the newest this many ended executions in each namespace. */
  keepPerNamespace?: number;
  /** Delete ended executions that ended more than this long ago (ms). */
  olderThanMs?: number;
}

/** Retention with its defaults filled in. */
export interface RetentionSettings {
  /** Ended executions older than this (ms) are deleted; `Infinity` keeps them. */
  executionsMaxAgeMs: number;
  /** Ended executions kept per namespace; `Infinity` keeps them all. */
  executionsMaxPerNamespace: number;
}

function positive(value: unknown, name: string): number {
  if (typeof value !== "number" || !(value > 0)) {
    throw new CordonError(
      "invalid_request",
      `${name} must be a positive number (Infinity keeps everything); got ${String(value)}`,
    );
  }
  return value;
}

function count(value: unknown, name: string): number {
  if (value === Infinity) return value;
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw new CordonError("invalid_request", `${name} must be a whole number ≥ 0`);
  }
  return value as number;
}

/** `retention` checked, with defaults: 30 days by age, no cap by count. */
export function retentionSettings(options: RetentionOptions | undefined): RetentionSettings {
  const perNamespace = options?.executionsMaxPerNamespace ?? Infinity;
  const name = "retention.executionsMaxPerNamespace";
  if (perNamespace !== Infinity && count(perNamespace, name) === 0) {
    throw new CordonError("invalid_request", `${name} must be at least 1 (Infinity keeps all)`);
  }
  return {
    executionsMaxAgeMs: positive(
      options?.executionsMaxAgeMs ?? DEFAULT_EXECUTION_RETAIN_MS,
      "retention.executionsMaxAgeMs",
    ),
    executionsMaxPerNamespace: perNamespace,
  };
}

/** Applies the runtime's retention once; returns how many executions were deleted. */
export function applyRetention(
  db: Db,
  settings: RetentionSettings,
  now: number = Date.now(),
): Promise<number> {
  const rules: PruneRules = {};
  if (Number.isFinite(settings.executionsMaxAgeMs)) {
    rules.endedBefore = now - settings.executionsMaxAgeMs;
  }
  if (Number.isFinite(settings.executionsMaxPerNamespace)) {
    rules.keepPerNamespace = settings.executionsMaxPerNamespace;
  }
  return pruneStore(db, rules);
}

/** {@link Runtime.pruneExecutions}: the caller's rules, checked. */
export function pruneExecutions(db: Db, options: PruneExecutionsOptions): Promise<number> {
  const o = options ?? {};
  if (o.keep === undefined && o.keepPerNamespace === undefined && o.olderThanMs === undefined) {
    throw new CordonError(
      "invalid_request",
      "pruneExecutions() needs keep, keepPerNamespace or olderThanMs",
    );
  }
  const rules: PruneRules = {};
  if (o.keep !== undefined) rules.keep = count(o.keep, "pruneExecutions() keep");
  if (o.keepPerNamespace !== undefined) {
    rules.keepPerNamespace = count(o.keepPerNamespace, "pruneExecutions() keepPerNamespace");
  }
  if (o.olderThanMs !== undefined) {
    if (typeof o.olderThanMs !== "number" || !(o.olderThanMs >= 0)) {
      throw new CordonError("invalid_request", "pruneExecutions() needs olderThanMs ≥ 0");
    }
    if (o.olderThanMs !== Infinity) rules.endedBefore = Date.now() - o.olderThanMs;
  }
  return pruneStore(db, rules);
}

/** Deleting what the runtime has kept, on a caller's demand (it also does so on its own). */
export interface RetentionApi {
  /**
   * Deletes ended executions with their call logs and console lines; returns how many. Each
   * rule is optional (at least one is needed): `keep` the newest N in all, `keepPerNamespace`
   * the newest N in each namespace, `olderThanMs` deletes those that ended longer ago. The
   * runtime applies `RuntimeOptions.retention` the same way on its own.
   */
  pruneExecutions(options: PruneExecutionsOptions): Promise<number>;
  /**
   * Deletes the console lines of executions that ended more than `olderThanMs` ago (their
   * `readLogs` pages then say `expired: true`); returns how many lines were deleted.
   */
  pruneLogs(options: { olderThanMs: number }): Promise<number>;
}
