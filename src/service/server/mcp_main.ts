/**
 * `deno task mcp`: Cordon as an MCP server on stdio, for desktop clients.
 * It uses the same config and data directory as `deno task serve`. Nothing
 * but the protocol may go to stdout; messages go to stderr.
 *
 * @module
 */
import { createRuntime } from "../../engine/mod.ts";
import { parseFlags, resolveConfig, runMain } from "./cli.ts";
import { serveMcpStdio } from "../mcp/mod.ts";
import { runtimeOptionsOf } from "./server.ts";

if (import.meta.main) {
  await runMain(async () => {
    const { values } = parseFlags(Deno.args, { namespace: { type: "string" } });
    if (values.help) {
      console.error("deno task mcp [--config file] [--data-dir dir] [--namespace ns]");
      return;
    }
    const runtime = await createRuntime(await runtimeOptionsOf(await resolveConfig(values)));
    try {
      await serveMcpStdio(runtime, values.namespace ? { namespace: values.namespace } : {});
    } finally {
      await runtime.close();
    }
  });
}
