/**
 * How the kit shows values, calls and outcomes in assertion messages, and
 * the one way it fails: a node:assert `AssertionError`, which `deno test`
 * prints with its message and which `assert.throws` can match.
 *
 * @module
 */
import { AssertionError } from "node:assert/strict";
import type { CallRecord, ExecuteResult } from "../engine/execution/types.ts";

/** Characters of one value in a message: enough to see the difference, short enough to scan. */
const MAX_PREVIEW_CHARS = 240;
/** Console lines shown for a failed run: the last few usually say why. */
const MAX_LOG_LINES = 8;
/** Calls listed for an outcome; a run with more is summarized. */
const MAX_LISTED_CALLS = 20;

/** One line of `value`, as Deno prints it, cut at {@link MAX_PREVIEW_CHARS}. */
export function preview(value: unknown, max: number = MAX_PREVIEW_CHARS): string {
  const text = Deno.inspect(value, {
    colors: false,
    compact: true,
    breakLength: Infinity,
    depth: 6,
    iterableLimit: 20,
    strAbbreviateSize: max,
  }).replace(/\s*\n\s*/g, " ");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `weather.forecast { city: "Oslo" }`: a call as a test author wrote it. */
export function showCall(call: Pick<CallRecord, "connector" | "tool" | "args">): string {
  return `${call.connector}.${call.tool} ${preview(call.args)}`;
}

/** The calls of a result, one per line, with their seq and state. */
export function showCalls(calls: readonly CallRecord[], indent = "  "): string {
  if (calls.length === 0) return `${indent}(no calls)`;
  const lines = calls.slice(0, MAX_LISTED_CALLS).map((c) =>
    `${indent}#${c.seq} ${
      c.kind === "step" ? `step ${preview(c.args)}` : showCall(c)
    } → ${c.state}` +
    (c.error ? ` (${c.error.code}: ${c.error.message})` : "")
  );
  if (calls.length > MAX_LISTED_CALLS) {
    lines.push(`${indent}… and ${calls.length - MAX_LISTED_CALLS} more`);
  }
  return lines.join("\n");
}

/**
 * What happened in a run, for a failure message: the status and its reason
 * (error, pending calls or result), then the calls, the last console lines
 * and any type errors.
 */
export function describeOutcome(result: ExecuteResult): string {
  let head: string;
  if (result.status === "completed") {
    head = `it completed with ${preview(result.result)}`;
  } else if (result.status === "paused") {
    const waiting = result.pending.map((p) =>
      `#${p.seq} ${showCall(p)} (needs ${p.needs === "approval" ? "approval" : "a value"})`
    );
    head = `it paused, waiting for ${waiting.join(", ")}`;
  } else {
    const { code, message, location, details } = result.error;
    const at = location ? ` (line ${location.line}, column ${location.column})` : "";
    head = `it ended with status "${result.status}": ${code}: ${message}${at}`;
    if (details && Object.keys(details).length > 0) head += `\ndetails: ${preview(details)}`;
  }
  const parts = [head, `calls:\n${showCalls(result.calls)}`];
  if (result.logs.length > 0) {
    const logs = result.logs.slice(-MAX_LOG_LINES).map((l) => `  [${l.level}] ${l.message}`);
    parts.push(`console (last ${logs.length} of ${result.logs.length}):\n${logs.join("\n")}`);
  }
  if (result.diagnostics.length > 0) {
    const lines = result.diagnostics.map((d) =>
      `  ${d.code}${d.line ? ` line ${d.line}, column ${d.column}` : ""}: ${d.message}`
    );
    parts.push(`diagnostics:\n${lines.join("\n")}`);
  }
  return parts.join("\n");
}

/** What a failing helper says and shows. */
export interface Failure {
  message: string;
  actual?: unknown;
  expected?: unknown;
  operator: string;
}

/**
 * Throws an `AssertionError` whose stack starts at the caller of `from`,
 * so the failure points at the test's line, not the kit's.
 */
// deno-lint-ignore ban-types
export function fail(failure: Failure, from: Function): never {
  throw new AssertionError({ ...failure, stackStartFn: from });
}
