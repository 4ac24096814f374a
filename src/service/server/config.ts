/**
 * The service's configuration: a JSON or TypeScript file, then environment
 * variables and flags on top. JSON is validated field by field; a
 * TypeScript file may also hand over connectors built in code.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { McpHttpOptions, McpStdioOptions } from "../../connectors/mcp/mod.ts";
import type { Connector } from "../../connectors/types.ts";
import { CordonError } from "../../errors.ts";
import { NAMESPACE_PATTERN } from "../../engine/common/namespace.ts";
import { openAiEmbedder, type SearchSettingsOptions } from "../../engine/mod.ts";
import { SCOPES } from "../access/keys.ts";

/** Where the service listens when nothing says otherwise. */
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8787;
/** Request bodies above this are refused with 413 (code is at most 1,000,000 characters). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Config files looked for in the working directory, in order. */
export const CONFIG_FILES = ["cordon.config.ts", "cordon.config.json"] as const;

const limitsSchema = z.record(z.string(), z.number()).optional();
const embeddingsSchema = z.object({
  url: z.url().describe("An OpenAI-compatible API base (…/v1) or its …/embeddings endpoint"),
  model: z.string().min(1).describe("The embedding model; vectors are stored per model"),
  apiKey: z.string().min(1).optional().describe("Sent as a bearer token; a host-side secret"),
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable's name")
    .optional().describe("The environment variable holding the key, instead of apiKey"),
  dimensions: z.number().int().positive().optional(),
  headers: z.record(z.string(), z.string()).optional().describe("Sent with every request"),
  batchSize: z.number().int().min(1).max(2048).optional(),
  timeoutMs: z.number().int().positive().optional(),
  queryTimeoutMs: z.number().int().positive().optional(),
}).strict().refine((e) => !(e.apiKey && e.apiKeyEnv), "give apiKey or apiKeyEnv, not both");
const name = z.string().regex(/^[A-Za-z_$][\w$]*$/, "a JavaScript identifier");
const mcpCommon = {
  name,
  description: z.string().optional(),
  startupTimeoutMs: z.number().positive().optional(),
  callTimeoutMs: z.number().positive().optional(),
  approval: z.object({ destructive: z.boolean().optional(), all: z.boolean().optional() })
    .strict().optional(),
  concurrency: z.number().int().positive().optional(),
};

/** The configuration file's schema (JSON fields; TypeScript files may add `connectors`). */
export const configSchema = z.object({
  host: z.string().optional().describe("Address to bind (default 127.0.0.1)"),
  port: z.number().int().min(0).max(65535).optional(),
  dataDir: z.string().optional().describe("Where the libSQL file lives (default ./.cordon)"),
  db: z.string().optional().describe("A libSQL URL instead of the file in dataDir"),
  dbAuthToken: z.string().optional(),
  mcpServers: z.array(z.union([
    z.object({
      ...mcpCommon,
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().optional(),
    }).strict(),
    z.object({
      ...mcpCommon,
      url: z.url(),
      headers: z.record(z.string(), z.string()).optional(),
    }).strict(),
  ])).optional(),
  openapi: z.array(
    z.object({
      name,
      description: z.string().optional(),
      document: z.union([z.string(), z.record(z.string(), z.unknown())])
        .describe("A file path (relative to the config file), an http(s) URL, or the document"),
      baseUrl: z.url().optional(),
      headers: z.record(z.string(), z.string()).optional().describe("Sent with every request"),
      timeoutMs: z.number().positive().optional(),
      approval: z.object({ unsafeMethods: z.boolean().optional() }).strict().optional(),
      concurrency: z.number().int().positive().optional(),
    }).strict(),
  ).optional(),
  builtins: z.object({
    state: z.union([z.literal(false), z.object({ name: name.optional() }).loose()]).optional(),
    http: z.union([
      z.literal(false),
      z.object({
        allow: z.array(z.string()),
        secrets: z.record(z.string(), z.record(z.string(), z.string())).optional(),
        timeoutMs: z.number().positive().optional(),
        maxResponseBytes: z.number().int().positive().optional(),
        maxRedirects: z.number().int().min(0).optional(),
        allowPrivateNetwork: z.boolean().optional(),
        name: name.optional(),
      }).strict(),
    ]).optional(),
  }).strict().optional(),
  limits: limitsSchema,
  maxLimits: limitsSchema,
  pool: z.object({ size: z.number().int().min(0).max(64) }).strict().optional(),
  packages: z.record(z.string(), z.string()).optional()
    .describe("npm packages scripts may import, name to exact version"),
  typecheck: z.enum(["off", "warn", "strict"]).optional(),
  sessions: z.object({
    idleTtlMs: z.number().int().positive().optional(),
    maxSessions: z.number().int().positive().optional(),
    maxSessionsPerNamespace: z.number().int().positive().optional(),
    journalEntries: z.number().int().positive().optional(),
    maxJournalCodeChars: z.number().int().positive().optional(),
    retainMs: z.number().int().positive().optional(),
  }).strict().optional(),
  logs: z.object({ retainMs: z.number().int().positive().optional() }).strict().optional(),
  retention: z.object({
    executionsMaxAgeMs: z.number().int().positive().optional()
      .describe("Ended executions are deleted this long after they ended (default 30 days)"),
    executionsMaxPerNamespace: z.number().int().positive().optional()
      .describe("Each namespace keeps at most this many ended executions (default: no cap)"),
  }).strict().optional(),
  workspaces: z.object({ retainMs: z.number().int().positive().optional() }).strict().optional(),
  artifacts: z.object({ maxBytes: z.number().int().positive().optional() }).strict().optional(),
  search: z.object({
    embeddings: embeddingsSchema.optional()
      .describe("Rank tools and snippets by meaning too, with an OpenAI-compatible endpoint"),
  }).strict().optional(),
  redact: z.object({
    values: z.array(z.string()).optional()
      .describe("Secret values to remove from logs and journals (MCP headers, API keys, …)"),
  }).strict().optional(),
  network: z.object({
    allowPrivateNetwork: z.boolean().optional()
      .describe("Let executions' allowed hosts be private addresses (development only)"),
  }).strict().optional(),
  keys: z.array(
    z.object({
      name: z.string().min(1).max(100),
      sha256: z.string().regex(/^[0-9a-f]{64}$/, "64 lowercase hex digits (deno task keys hash)"),
      scopes: z.array(z.enum(SCOPES)).min(1),
      namespace: z.string().regex(NAMESPACE_PATTERN).optional(),
    }).strict(),
  ).optional().describe("Keys from the file, besides the ones `deno task keys` stores"),
  auth: z.enum(["auto", "keys"]).optional()
    .describe("auto: keys are needed once any exist, or off loopback; keys: always"),
  maxBodyBytes: z.number().int().positive().optional(),
  concurrency: z.object({
    maxRunning: z.number().int().min(1).optional().describe("Runs at once (default 64)"),
    maxQueued: z.number().int().min(0).optional()
      .describe("Requests waiting for a slot before 429 (default 1024)"),
  }).strict().optional(),
  examples: z.boolean().optional()
    .describe("Offer the example connector demo (default: on without a config file, else off)"),
  log: z.object({
    requests: z.boolean().optional().describe("One stdout line per HTTP request (default true)"),
    runs: z.boolean().optional().describe("One stdout line per run state change (default true)"),
  }).strict().optional(),
  events: z.object({
    maxExecutionBytes: z.number().int().positive().optional()
      .describe("Bytes of live events kept per execution for streams (default 4 MiB)"),
    maxTotalBytes: z.number().int().positive().optional()
      .describe("Bytes of live events kept in all; older ones are rebuilt from the store (64 MiB)"),
  }).strict().optional(),
}).strict();

/** The configuration as a file gives it. */
export type ServiceConfigFile = z.infer<typeof configSchema>;

/** A configuration: the file's fields, plus connectors built in code (TypeScript files). */
export interface ServiceConfig extends ServiceConfigFile {
  /** Connectors built in code, e.g. with `defineConnector`. */
  connectors?: Connector[];
  /** The file it came from, to resolve relative paths. */
  source?: string;
}

/** Types a TypeScript config file: `export default defineConfig({ … })`. */
export function defineConfig(config: ServiceConfig): ServiceConfig {
  return config;
}

function invalidConfig(where: string, why: string): CordonError {
  return new CordonError("invalid_config", `Cannot use the configuration in ${where}: ${why}`);
}

/** Validates a configuration object (from any source). */
export function parseConfig(value: unknown, where = "the configuration"): ServiceConfig {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalidConfig(where, "it must be an object");
  }
  const { connectors, ...rest } = value as Record<string, unknown>;
  const parsed = configSchema.safeParse(rest);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) =>
      `${i.path.join(".") || "(root)"}: ${i.message}`
    );
    throw invalidConfig(where, issues.join("; "));
  }
  if (connectors !== undefined && !Array.isArray(connectors)) {
    throw invalidConfig(where, "connectors must be an array of connectors");
  }
  return { ...parsed.data, ...(connectors ? { connectors: connectors as Connector[] } : {}) };
}

/** Reads a config file (`.json`, or `.ts`/`.js` with a default export). */
export async function loadConfigFile(path: string): Promise<ServiceConfig> {
  const full = resolve(path);
  if (!existsSync(full)) throw invalidConfig(full, "there is no such file");
  let value: unknown;
  if (full.endsWith(".json")) {
    try {
      value = JSON.parse(await Deno.readTextFile(full));
    } catch (err) {
      throw invalidConfig(full, `it is not JSON (${(err as Error).message})`);
    }
  } else {
    value = (await import(pathToFileURL(full).href)).default;
  }
  return { ...parseConfig(value, full), source: full };
}

/** Finds the config: `--config`, `CORDON_CONFIG`, or a `cordon.config.*` in `cwd`. */
export function findConfigFile(explicit: string | undefined, cwd: string): string | undefined {
  if (explicit) return explicit;
  const env = Deno.env.get("CORDON_CONFIG");
  if (env) return env;
  for (const f of CONFIG_FILES) {
    if (existsSync(resolve(cwd, f))) return resolve(cwd, f);
  }
  return undefined;
}

/** A path from the config file, relative to it. */
export function fromConfig(config: ServiceConfig, path: string): string {
  if (isAbsolute(path) || !config.source) return resolve(path);
  return resolve(dirname(config.source), path);
}

/** The MCP connector options of the config. */
export function mcpOptions(config: ServiceConfig): (McpStdioOptions | McpHttpOptions)[] {
  return (config.mcpServers ?? []).map((s) =>
    "command" in s && s.cwd ? { ...s, cwd: fromConfig(config, s.cwd) } : s
  );
}

/**
 * The embedding endpoint's key a config names: `apiKey`, or the value of the variable
 * `apiKeyEnv` names (`invalid_config` when it is not set).
 */
export function embeddingsKey(config: ServiceConfig): string | undefined {
  const e = config.search?.embeddings;
  if (!e?.apiKeyEnv) return e?.apiKey;
  const key = Deno.env.get(e.apiKeyEnv);
  if (!key) {
    throw new CordonError(
      "invalid_config",
      `Cannot use search.embeddings: the environment variable ${e.apiKeyEnv} (apiKeyEnv) is not set`,
    );
  }
  return key;
}

/** The runtime's search options a config means: an OpenAI-compatible embedder, if it names one. */
export function searchOptions(config: ServiceConfig): SearchSettingsOptions | undefined {
  const e = config.search?.embeddings;
  if (!e) return undefined;
  const { url, model, dimensions, headers, batchSize, timeoutMs, queryTimeoutMs } = e;
  const apiKey = embeddingsKey(config);
  return {
    embed: openAiEmbedder({
      url,
      model,
      ...(apiKey ? { apiKey } : {}),
      ...(dimensions ? { dimensions } : {}),
      ...(headers ? { headers } : {}),
    }),
    ...(batchSize ? { batchSize } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(queryTimeoutMs ? { queryTimeoutMs } : {}),
  };
}
