/**
 * What the MCP connector adds per call: sequential `get-sum` calls to
 * server-everything over stdio, through `McpConnector` (a tool's
 * `execute`, as the registry calls it) and through a plain SDK `Client` with
 * the SDK's own stdio transport, each to its own server process of the
 * same kind. The two are interleaved, alternating which goes first, so
 * drift in the machine's load hits both alike.
 *
 * The end-to-end variant (a script in the sandbox calling the tool) is
 * measured elsewhere. Run alone:
 *
 * ```sh
 * deno run --allow-all bench/mcp.ts [--samples=500]
 * ```
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mcpConnector } from "../src/connectors/mcp/mod.ts";
import type { ToolContext } from "../src/connectors/types.ts";
import { everythingStdio, FIRST_START_TIMEOUT_MS } from "../tests/_helpers/mcp_servers.ts";
import { brief, check, progress, round, timed } from "./stats.ts";

/** Calls before measuring: JIT warm-up on both sides of the pipe. */
const WARMUP_CALLS = 50;

const ARGS = { a: 20, b: 22 };
const EXPECTED = "The sum of 20 and 22 is 42.";

/** Per-call wall time in µs, direct SDK vs through the connector, and the difference of the medians. */
export async function mcpBench(samples: number): Promise<{
  directUs: { p50: number; p95: number };
  connectorUs: { p50: number; p95: number };
  addedUs: number;
}> {
  const command = await everythingStdio();
  await using connector = mcpConnector({
    name: "everything",
    ...command,
    startupTimeoutMs: FIRST_START_TIMEOUT_MS,
  });
  await connector.start();
  const tool = connector.tools.find((t) => t.name === "get-sum");
  check(tool?.execute, "server-everything has get-sum");
  // A fresh signal per call, as the registry gives each call its own.
  const context = (): ToolContext => ({
    signal: new AbortController().signal,
    executionId: "exec_bench",
    connector: "everything",
    tool: "get-sum",
  });
  const viaConnector = () => Promise.resolve(tool.execute!(ARGS, context()));

  const client = new Client({ name: "cordon-bench", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ ...command, stderr: "ignore" }));
  try {
    const direct = async () => {
      const result = await client.callTool({ name: "get-sum", arguments: ARGS });
      return (result.content as { text: string }[])[0].text;
    };
    progress(`mcp: warming up (${WARMUP_CALLS} calls each)`);
    for (let i = 0; i < WARMUP_CALLS; i++) {
      check((await direct()) === EXPECTED, "direct call answers");
      check((await viaConnector()) === EXPECTED, "connector call answers");
    }
    progress(`mcp: ${samples} calls each, interleaved`);
    const directUs: number[] = [];
    const connectorUs: number[] = [];
    for (let i = 0; i < samples; i++) {
      const order = i % 2 === 0 ? [direct, viaConnector] : [viaConnector, direct];
      for (const run of order) {
        const { ms, value } = await timed(run);
        check(value === EXPECTED, "every call answers correctly");
        (run === direct ? directUs : connectorUs).push(ms * 1000);
      }
    }
    const d = brief(directUs, 1);
    const c = brief(connectorUs, 1);
    return { directUs: d, connectorUs: c, addedUs: round(c.p50 - d.p50, 1) };
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  const arg = Deno.args.find((a) => a.startsWith("--samples="));
  const samples = arg ? Number(arg.slice("--samples=".length)) : 500;
  console.log(JSON.stringify(await mcpBench(samples), null, 2));
}
