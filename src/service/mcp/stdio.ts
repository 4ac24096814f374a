/**
 * {@link serveMcpStdio}: the MCP front on this process's stdin and stdout.
 *
 * @module
 */
import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Runtime } from "../../engine/runtime/types.ts";
import { createMcpFront, type McpFrontOptions } from "./server.ts";

/**
 * Serves the MCP front (see `createMcpFront()`) over stdio and resolves when
 * the client goes away: stdin ends (the SDK's transport does not watch for
 * that itself) or the transport closes. The caller then closes the runtime:
 *
 * ```ts ignore
 * await serveMcpStdio(runtime);
 * await runtime.close();
 * ```
 *
 * stdout carries the protocol and nothing else: any other write to it
 * (`console.log`, `console.info`, a child inheriting stdout) corrupts the
 * stream. Write diagnostics to stderr (`console.error`). The `execute` tool's
 * description is read once, at start; tools added later are found through
 * `search` but are not named in it.
 */
export async function serveMcpStdio(
  runtime: Runtime,
  options: McpFrontOptions = {},
): Promise<void> {
  const server = await createMcpFront(runtime, options);
  const { promise: closed, resolve } = Promise.withResolvers<void>();
  server.server.onclose = () => resolve();
  const onEnd = () => void server.close();
  process.stdin.once("end", onEnd);
  try {
    await server.connect(new StdioServerTransport(process.stdin, process.stdout));
    await closed;
  } finally {
    process.stdin.off("end", onEnd);
  }
}
