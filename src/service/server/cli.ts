/**
 * What the command-line entry points share: flags, environment and config
 * file resolved into one configuration (flags win over the environment,
 * the environment over the file).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { CordonError } from "../../errors.ts";
import { findConfigFile, loadConfigFile, type ServiceConfig } from "./config.ts";

/** Flags every entry point takes. */
export const COMMON_FLAGS = {
  config: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  "data-dir": { type: "string" },
  /** `--examples` / `--no-examples`: the example connector on or off. */
  examples: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function portOf(value: string, where: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new CordonError("invalid_config", `${where} must be a port number; got "${value}"`);
  }
  return n;
}

function switchOf(value: string, where: string): boolean {
  if (value === "1" || value === "0") return value === "1";
  throw new CordonError("invalid_config", `${where} must be 0 or 1; got "${value}"`);
}

/**
 * The configuration from `--config`/`CORDON_CONFIG`/`cordon.config.*`, env and flags. Without a
 * config file the example connector is on; `CORDON_EXAMPLES` and `--[no-]examples` decide over
 * both.
 */
export async function resolveConfig(
  flags: {
    config?: string;
    port?: string;
    host?: string;
    "data-dir"?: string;
    examples?: boolean;
  },
  cwd = Deno.cwd(),
): Promise<ServiceConfig> {
  const file = findConfigFile(flags.config, cwd);
  const config: ServiceConfig = file ? await loadConfigFile(file) : { examples: true };
  const env = (name: string) => Deno.env.get(name) || undefined;
  const examples = env("CORDON_EXAMPLES");
  if (examples !== undefined) config.examples = switchOf(examples, "CORDON_EXAMPLES");
  if (flags.examples !== undefined) config.examples = flags.examples;
  const port = flags.port ?? env("CORDON_PORT");
  if (port !== undefined) {
    config.port = portOf(port, flags.port !== undefined ? "--port" : "CORDON_PORT");
  }
  const host = flags.host ?? env("CORDON_HOST");
  if (host !== undefined) config.host = host;
  const dataDir = flags["data-dir"] ?? env("CORDON_DATA_DIR");
  if (dataDir !== undefined) config.dataDir = dataDir;
  const db = env("CORDON_DB");
  if (db !== undefined) config.db = db;
  return config;
}

/** Parses `args` with the common flags and `extra` ones; a bad flag is `invalid_config`. */
export function parseFlags<
  T extends Record<string, { type: "string" | "boolean"; short?: string }>,
>(
  args: string[],
  extra: T = {} as T,
) {
  try {
    return parseArgs({
      args,
      options: { ...COMMON_FLAGS, ...extra },
      allowPositionals: true,
      allowNegative: true,
      strict: true,
    });
  } catch (err) {
    throw new CordonError("invalid_config", (err as Error).message);
  }
}

/** Runs a CLI main: a typed error prints its message and exits 1. */
export async function runMain(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (err) {
    if (err instanceof CordonError) {
      console.error(`cordon: ${err.message}`);
      Deno.exit(1);
    }
    throw err;
  }
}
