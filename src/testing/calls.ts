/**
 * Assertions on the tool calls a run made, read from its call log:
 * `assertCalls` checks the whole sequence, `callsTo` picks out one tool's
 * calls for a test to check as it likes.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import type { CallRecord } from "../engine/execution/types.ts";
import type { CallState } from "../store/calls.ts";
import { fail, preview, showCall } from "./format.ts";

/** One call a test expects, in the order the script made it. */
export interface ExpectedCall {
  /** `connector.tool`, as the script calls it: `weather.forecast`. */
  tool: string;
  /**
   * The arguments as the script passed them (before the tool's schema
   * fills in defaults), matched partially: an object matches when each key it
   * lists matches (other keys are ignored, at any depth); an array matches
   * item by item and must have the same length; anything else must be
   * deeply equal. Left out, any arguments match.
   */
  args?: unknown;
  /** The call's state in the log: `applied`, `error`, `pending`, `rejected`, … */
  state?: CallState;
}

/** Anything with a call log: an execute result, `runtime.execution(id)`, or the calls themselves. */
export type CallSource = { readonly calls: readonly CallRecord[] } | readonly CallRecord[];

function toolCalls(source: CallSource): CallRecord[] {
  const calls = Array.isArray(source) ? source : (source as { calls: CallRecord[] }).calls;
  return calls.filter((c) => c.kind === "tool");
}

/** Splits `connector.tool` at the first dot: connector names have none, tool names may. */
function splitPath(path: string): [connector: string, tool: string | undefined] {
  const dot = path.indexOf(".");
  return dot === -1 ? [path, undefined] : [path.slice(0, dot), path.slice(dot + 1)];
}

/**
 * The tool calls a run made to one tool (`weather.forecast`) or to every
 * tool of one connector (`weather`), in order. `codemode.step` values are
 * not tool calls and are left out.
 *
 * @param source An execute result, execution details, or a list of calls.
 * @param path `connector.tool`, or a connector name.
 * @returns The matching calls, each with `seq`, `args`, `state` and `error`.
 */
export function callsTo(source: CallSource, path: string): CallRecord[] {
  const [connector, tool] = splitPath(path);
  return toolCalls(source).filter((c) =>
    c.connector === connector && (tool === undefined || c.tool === tool)
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Where `actual` first differs from the partial `expected`, or `undefined` if it matches. */
function partialMismatch(actual: unknown, expected: unknown, path: string): string | undefined {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return `${path}: expected an object, got ${preview(actual)}`;
    for (const [key, want] of Object.entries(expected)) {
      const at = `${path}.${key}`;
      if (!Object.hasOwn(actual, key)) {
        if (want === undefined) continue;
        return `${at}: missing (expected ${preview(want)})`;
      }
      const found = partialMismatch(actual[key], want, at);
      if (found) return found;
    }
    return undefined;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${preview(actual)}`;
    if (actual.length !== expected.length) {
      return `${path}: expected ${expected.length} items, got ${actual.length}: ${preview(actual)}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const found = partialMismatch(actual[i], expected[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  return isDeepStrictEqual(actual, expected)
    ? undefined
    : `${path}: expected ${preview(expected)}, got ${preview(actual)}`;
}

/** Why `call` does not match `want`, or `undefined`. */
function callMismatch(call: CallRecord, want: ExpectedCall): string | undefined {
  const path = `${call.connector}.${call.tool}`;
  if (path !== want.tool) return `expected ${want.tool}, got ${path}`;
  if (want.args !== undefined) {
    const found = partialMismatch(call.args, want.args, "args");
    if (found) return `${path} ${found}`;
  }
  if (want.state !== undefined && call.state !== want.state) {
    const why = call.error ? ` (${call.error.code}: ${call.error.message})` : "";
    return `${path}: expected state ${want.state}, got ${call.state}${why}`;
  }
  return undefined;
}

function showExpected(want: ExpectedCall): string {
  const args = want.args === undefined ? "(any args)" : preview(want.args);
  return `${want.tool} ${args}${want.state ? ` → ${want.state}` : ""}`;
}

/**
 * Asserts that a run made exactly these tool calls, in this order, with
 * arguments that match partially (see {@link ExpectedCall.args}).
 * `codemode.step` values are not tool calls and are ignored.
 *
 * @param source An execute result, execution details, or a list of calls.
 * @param expected The calls, in order.
 * @throws {AssertionError} At the first difference: a wrong tool, argument
 * or state, a missing call or an extra one; the message lists both sequences.
 */
export function assertCalls(source: CallSource, expected: readonly ExpectedCall[]): void {
  const actual = toolCalls(source);
  let problem: string | undefined;
  let at = -1;
  for (let i = 0; i < Math.max(actual.length, expected.length) && !problem; i++) {
    at = i;
    if (i >= actual.length) problem = `expected ${showExpected(expected[i])}, but no call was made`;
    else if (i >= expected.length) problem = `unexpected ${showCall(actual[i])}`;
    else problem = callMismatch(actual[i], expected[i]);
  }
  if (!problem) return;
  const listed = actual.map((c, i) =>
    `  ${i === at ? "✗" : i < at ? "✓" : " "} ${i + 1}. ${showCall(c)} → ${c.state}`
  );
  const wanted = expected.map((w, i) => `    ${i + 1}. ${showExpected(w)}`);
  fail({
    message: `Tool calls differ at call ${at + 1}: ${problem}\n` +
      `expected ${expected.length} call(s):\n${wanted.join("\n") || "    (none)"}\n` +
      `actual ${actual.length} call(s):\n${listed.join("\n") || "    (none)"}`,
    actual: actual.map((c) => ({ tool: `${c.connector}.${c.tool}`, args: c.args, state: c.state })),
    expected,
    operator: "assertCalls",
  }, assertCalls);
}
