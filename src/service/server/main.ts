/**
 * `deno task serve`: the HTTP service.
 *
 * @module
 */
import { VERSION } from "../../version.ts";
import { parseFlags, resolveConfig, runMain } from "./cli.ts";
import { EXAMPLE_CONNECTOR } from "./examples.ts";
import { type Service, startService } from "./server.ts";

const HELP = `cordon serve ${VERSION}: run the Cordon HTTP service

  deno task serve [--port 8787] [--host 127.0.0.1] [--data-dir ./.cordon] [--config file]
                  [--examples | --no-examples]

Environment: CORDON_PORT, CORDON_HOST, CORDON_DATA_DIR, CORDON_DB, CORDON_CONFIG,
CORDON_EXAMPLES (1 or 0).
Without --config, cordon.config.ts or cordon.config.json in this directory is used if present.
Without any config file the example connector "${EXAMPLE_CONNECTOR}" is on.
It prints one line per request and per run state change ("log" in the config turns them off).`;

/** What the service prints when it is up: where, what, and how to call it. */
export function banner(service: Service, authRequired: boolean, examples = false): string {
  const caps = service.runtime.capabilities();
  const connectors = service.runtime.connectors().map((c) => `${c.name} (${c.tools.length})`);
  const auth = authRequired
    ? "API keys required (Authorization: Bearer <key>)"
    : "none: loopback only, no API keys exist (create one with deno task keys create)";
  const key = authRequired ? ` -H 'authorization: Bearer $CORDON_KEY'` : "";
  return [
    `cordon ${VERSION} listening on ${service.url}`,
    `  data:         ${service.db.replace(/^file:/, "")}`,
    `  memory guard: ${caps.memoryGuard.kind} (${caps.memoryGuard.reason})`,
    `  orphan guard: ${caps.orphanGuard.kind} (${caps.orphanGuard.reason})`,
    `  connectors:   ${connectors.join(", ") || "none"}`,
    ...(examples
      ? [
        `  examples:     ${EXAMPLE_CONNECTOR} is an example (demo.deploy needs approval); ` +
        `off: "examples": false in the config, CORDON_EXAMPLES=0 or --no-examples`,
      ]
      : []),
    `  auth:         ${auth}`,
    `  API:          ${service.url}/openapi.json · MCP: ${service.url}/mcp`,
    `  try:          curl -s ${service.url}/v1/executions${key} -H 'content-type: application/json' -d '{"code":"return 1 + 1"}'`,
  ].join("\n");
}

if (import.meta.main) {
  await runMain(async () => {
    const { values } = parseFlags(Deno.args);
    if (values.help) {
      console.log(HELP);
      return;
    }
    const config = await resolveConfig(values);
    const service = await startService(config, { log: (line) => console.log(line) });
    console.log(banner(service, await service.authRequired(), config.examples));
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      console.log(`cordon: ${signal}: finishing accepted requests, then stopping`);
      await service.close();
      console.log("cordon: stopped");
      Deno.exit(0);
    };
    Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
    Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
  });
}
