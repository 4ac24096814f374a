/**
 * Shared bits of the MCP connector tests: calling a tool the way the
 * registry does, and asserting a failure's code.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { McpConnector } from "../../src/connectors/mcp/mod.ts";
import type { ToolContext } from "../../src/connectors/types.ts";
import { CordonError, type ErrorCode } from "../../src/errors.ts";

/** A tool context whose signal the caller may abort. */
export function toolContext(
  tool: string,
  signal: AbortSignal = new AbortController().signal,
): ToolContext {
  return { signal, executionId: "exec_test", namespace: "default", connector: "mcp", tool };
}

/** Runs `connector`'s tool `name` directly (no registry). */
export function callTool(
  connector: McpConnector,
  name: string,
  args: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const tool = connector.tools.find((t) => t.name === name);
  assert.ok(tool?.execute, `${connector.name} has no tool ${name}`);
  return Promise.resolve(tool.execute(args, toolContext(name, signal)));
}

/** Asserts that `promise` rejects with a `CordonError` of `code` (and a message matching `pattern`). */
export async function assertFailsWith(
  promise: Promise<unknown>,
  code: ErrorCode,
  pattern?: RegExp,
): Promise<CordonError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof CordonError, `expected a CordonError ${code}, got ${caught}`);
  assert.equal(caught.code, code, caught.message);
  if (pattern) assert.match(caught.message, pattern);
  return caught;
}
