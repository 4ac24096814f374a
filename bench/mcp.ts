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
    namespace: "default",
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

/** Scripts per sample pair in the end-to-end figure (each pair: 0 calls and `E2E_CALLS` calls). */
const E2E_CALLS = 50;

/**
 * End to end: a script in the sandbox making {@link E2E_CALLS} sequential `get-sum` calls,
 * minus the same script with none, per call, against a direct SDK call to a server of the same
 * kind. This is the figure: what Cordon adds per call (≤ 200 µs p50 is the target).
 */
export async function mcpEndToEndBench(pairs: number): Promise<{
  directUs: { p50: number; p95: number };
  throughCordonUs: { p50: number; p95: number };
  addedUs: number;
}> {
  const { createRuntime } = await import("../mod.ts");
  const command = await everythingStdio();
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 2 },
    typecheck: "off",
    connectors: [
      mcpConnector({ name: "everything", ...command, startupTimeoutMs: FIRST_START_TIMEOUT_MS }),
    ],
  });
  const script = (n: number) =>
    `let last;\nfor (let i = 0; i < ${n}; i++) last = await everything["get-sum"]({ a: 20, b: 22 });\nreturn last ?? null;`;
  const client = new Client({ name: "cordon-bench", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ ...command, stderr: "ignore" }));
  try {
    const perCall: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < pairs + 2; i++) {
      await rt.warm();
      const zero = await timed(() => rt.execute({ code: script(0) }));
      await rt.warm();
      const many = await timed(() => rt.execute({ code: script(E2E_CALLS) }));
      check(many.value.status === "completed", `the ${E2E_CALLS}-call script completed`);
      const d = await timed(async () => {
        for (let k = 0; k < E2E_CALLS; k++) {
          await client.callTool({ name: "get-sum", arguments: ARGS });
        }
      });
      if (i < 2) continue;
      perCall.push(((many.ms - zero.ms) / E2E_CALLS) * 1000);
      direct.push((d.ms / E2E_CALLS) * 1000);
    }
    const t = brief(perCall, 1);
    const d = brief(direct, 1);
    return { directUs: d, throughCordonUs: t, addedUs: round(t.p50 - d.p50, 1) };
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  const arg = Deno.args.find((a) => a.startsWith("--samples="));
  const samples = arg ? Number(arg.slice("--samples=".length)) : 500;
  console.log(
    JSON.stringify(
      { connector: await mcpBench(samples), endToEnd: await mcpEndToEndBench(10) },
      null,
      2,
    ),
  );
}
