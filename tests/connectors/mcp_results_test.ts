/**
 * The MCP result and error mapping on its own (no server): what a script
 * gets back from each result shape, and which code each failure becomes.
 */
import assert from "node:assert/strict";
import { codedFailure, mcpFailure, serverText } from "../../src/connectors/mcp/errors.ts";
import { toolResultValue } from "../../src/connectors/mcp/results.ts";
import { McpError } from "../../src/connectors/mcp/sdk.ts";
import { ToolNames } from "../../src/connectors/mcp/tools.ts";
import { CordonError } from "../../src/errors.ts";

const context = { connector: "srv", what: "srv.tool", timeoutMs: 1_000 };
const text = (t: string) => ({ type: "text" as const, text: t });

Deno.test("toolResultValue() prefers structuredContent over content", () => {
  const value = toolResultValue(
    { content: [text('{"a":1}')], structuredContent: { a: 2 } },
    context,
  );
  assert.deepEqual(value, { a: 2 });
});

Deno.test("toolResultValue() parses one JSON text block and keeps other text as a string", () => {
  assert.deepEqual(toolResultValue({ content: [text(' [1, {"b": null}] ')] }, context), [1, {
    b: null,
  }]);
  assert.equal(toolResultValue({ content: [text("42")] }, context), 42);
  assert.equal(toolResultValue({ content: [text("{not json")] }, context), "{not json");
  assert.equal(toolResultValue({ content: [text("plain words")] }, context), "plain words");
});

Deno.test("toolResultValue() returns several or non-text blocks as { content }", () => {
  const two = { content: [text("a"), text("b")] };
  assert.deepEqual(toolResultValue(two, context), { content: two.content });
  const image = { content: [{ type: "image" as const, data: "AAAA", mimeType: "image/png" }] };
  assert.deepEqual(toolResultValue(image, context), { content: image.content });
  assert.deepEqual(toolResultValue({ content: [] }, context), { content: [] });
});

Deno.test("toolResultValue() throws tool_error with the text of an isError result", () => {
  assert.throws(
    () =>
      toolResultValue({ content: [text("disk full"), text("try later")], isError: true }, context),
    (err) =>
      err instanceof CordonError && err.code === "tool_error" &&
      err.message === "srv.tool failed: disk full\ntry later",
  );
  assert.throws(
    () => toolResultValue({ content: [], isError: true }, context),
    (err) => err instanceof CordonError && /without a message/.test(err.message),
  );
});

Deno.test("toolResultValue() reads a protocol error wrapped in an isError result", () => {
  const wrapped = {
    content: [text("MCP error -32602: Input validation error: Invalid arguments for tool x")],
    isError: true,
  };
  assert.throws(
    () => toolResultValue(wrapped, context),
    (err) =>
      err instanceof CordonError && err.code === "invalid_input" &&
      err.details?.mcpCode === -32602 && !err.message.includes("MCP error"),
  );
});

Deno.test("codedFailure() maps JSON-RPC and MCP numbers to Cordon codes", () => {
  const code = (n: number, message: string) => codedFailure(n, message, context).code;
  assert.equal(code(-32602, "Invalid arguments: a is required"), "invalid_input");
  assert.equal(code(-32602, "Resource x://y not found"), "not_found");
  assert.equal(code(-32602, "Tool nope not found"), "not_found");
  assert.equal(code(-32602, "Output validation error: no structured content"), "tool_error");
  assert.equal(code(-32002, "Resource missing"), "not_found");
  assert.equal(code(-32601, "Method not found"), "not_supported");
  assert.equal(code(-32001, "Request timed out"), "tool_timeout");
  assert.equal(code(-32603, "Unknown resource: x://1"), "not_found");
  assert.equal(code(-32603, "boom"), "tool_error");
  // A server's own -32000 is its error, not a lost connection.
  assert.equal(code(-32000, "server says no"), "tool_error");
});

Deno.test("mcpFailure() blames the connection when it was lost, and the caller when it aborted", () => {
  const lost = mcpFailure(new McpError(-32000, "Connection closed"), {
    ...context,
    lost: "the server process was killed by SIGKILL",
  });
  assert.equal(lost.code, "connector_unavailable");
  assert.match(
    lost.message,
    /\(the server process was killed by SIGKILL\); the next call reconnects/,
  );
  const timedOut = new AbortController();
  timedOut.abort(new DOMException("late", "TimeoutError"));
  assert.equal(
    mcpFailure(new Error("x"), { ...context, signal: timedOut.signal }).code,
    "tool_timeout",
  );
  const cancelled = new AbortController();
  cancelled.abort();
  assert.equal(
    mcpFailure(new Error("x"), { ...context, signal: cancelled.signal }).code,
    "tool_error",
  );
  assert.equal(mcpFailure(new TypeError("fetch failed"), context).code, "connector_unavailable");
});

Deno.test("serverText() drops repeated SDK prefixes and bounds long messages", () => {
  assert.equal(
    serverText("MCP error -32602: MCP error -32602: Prompt p not found"),
    "Prompt p not found",
  );
  assert.equal(serverText("x".repeat(10_000)).length, 4_001);
});

Deno.test("ToolNames.nameFor() keeps MCP names, repairs names the registry refuses, resolves clashes", () => {
  const names = new ToolNames();
  assert.equal(names.nameFor("get-sum"), "get-sum");
  assert.equal(names.nameFor("files.read_all"), "files.read_all");
  assert.equal(names.nameFor("read file"), "read_file");
  assert.equal(names.nameFor("read/file"), "read_file_2");
  assert.equal(names.nameFor("read file"), "read_file", "the same MCP name keeps its name");
  assert.equal(names.nameFor("-flag"), "_-flag");
  assert.equal(names.nameFor("constructor"), "constructor_");
  assert.equal(names.nameFor("a".repeat(200)).length, 128);
});
