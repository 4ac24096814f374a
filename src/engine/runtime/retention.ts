/**
 * Execution retention for a runtime: the checked settings, and the rules a
 * library caller or the runtime's periodic job hands to the store.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { Db } from "../../store/client.ts";
import { pruneExecutions as pruneStore, type PruneRules } from "../../store/retention.ts";
import {
  DEFAULT_EXECUTION_RETAIN_MS,
  type PruneExecutionsOptions,
  type RetentionOptions,
} from "./types.ts";

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
