/**
 * Starts the service: the runtime with the configured connectors, the API
 * keys, the Hono app on `Deno.serve`, and a graceful shutdown that answers
 * every accepted request, lets background runs finish, reaps every child
 * and leaves paused executions paused.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { mcpConnector } from "../../connectors/mcp/mod.ts";
import { openApiConnector } from "../../connectors/openapi/mod.ts";
import type { Connector } from "../../connectors/types.ts";
import { createRuntime, type Runtime, type RuntimeOptions } from "../../engine/mod.ts";
import { CordonError } from "../../errors.ts";
import { cannotOpen, type Db, openDb } from "../../store/client.ts";
import { migrate } from "../../store/migrations.ts";
import { VERSION } from "../../version.ts";
import { createApp } from "./app.ts";
import {
  DEFAULT_HOST,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PORT,
  embeddingsKey,
  fromConfig,
  mcpOptions,
  searchOptions,
  type ServiceConfig,
} from "./config.ts";
import type { ServiceDeps } from "../routes/deps.ts";
import { ActivityFeed } from "../requests/activity.ts";
import { EventLog } from "../requests/event_log.ts";
import { Gate } from "../requests/gate.ts";
import { Idempotency } from "../requests/idempotency.ts";
import { ApiKeys } from "../access/keys.ts";
import { type LogLine, runLog } from "./activity_log.ts";
import { exampleConnector } from "./examples.ts";

/** A running service. */
export interface Service extends AsyncDisposable {
  /** `http://host:port` */
  url: string;
  hostname: string;
  port: number;
  runtime: Runtime;
  keys: ApiKeys;
  /** The live event logs behind event streams (bounded in bytes). */
  events: EventLog;
  /** The database URL. */
  db: string;
  /** Whether requests need a key now. */
  authRequired(): Promise<boolean>;
  /** Stops accepting, answers what was accepted, lets background runs end, closes everything. */
  close(): Promise<void>;
}

/** Where a service keeps its data and how long shutdown waits for background runs. */
export interface StartOptions {
  /** Background runs (`wait: false`) get this long to finish at shutdown (ms, default 30 s). */
  shutdownGraceMs?: number;
  /**
   * Receives the activity log: a line per request and per run state change, unless the config's
   * `log` turns one off. Without it the service logs nothing (`deno task serve` prints them).
   */
  log?: LogLine;
}

/** True for addresses only this machine reaches. */
export function isLoopback(host: string): boolean {
  return /^(?:127(?:\.\d{1,3}){3}|localhost|::1|\[::1\])$/i.test(host);
}

/** The database URL a config names: `db`, or `cordon.db` in the data directory. */
export function databaseOf(config: ServiceConfig): { db: string; dataDir: string } {
  const dataDir = resolve(config.dataDir ?? "./.cordon");
  return { db: config.db ?? `file:${join(dataDir, "cordon.db")}`, dataDir };
}

async function loadDocument(config: ServiceConfig, doc: string | object): Promise<object | string> {
  if (typeof doc !== "string") return doc;
  if (/^https?:\/\//.test(doc)) {
    const res = await fetch(doc, { signal: AbortSignal.timeout(15_000) });
    if (!res.ok) {
      throw new CordonError(
        "invalid_config",
        `Cannot fetch the OpenAPI document ${doc}: ${res.status}`,
      );
    }
    return await res.text();
  }
  return await Deno.readTextFile(fromConfig(config, doc));
}

async function connectorsOf(config: ServiceConfig): Promise<Connector[]> {
  const out: Connector[] = [...(config.connectors ?? [])];
  if (config.examples) out.push(exampleConnector());
  for (const options of mcpOptions(config)) out.push(mcpConnector(options));
  for (const o of config.openapi ?? []) {
    const { headers, document, ...rest } = o;
    out.push(openApiConnector({
      ...rest,
      document: await loadDocument(config, document),
      ...(headers ? { auth: { headers } } : {}),
    }));
  }
  return out;
}

/** Secret values in the config: MCP headers and env, OpenAPI headers, the embeddings key. */
function configSecrets(config: ServiceConfig): string[] {
  const out: string[] = [];
  for (const m of config.mcpServers ?? []) {
    if ("headers" in m && m.headers) out.push(...Object.values(m.headers));
    if ("env" in m && m.env) out.push(...Object.values(m.env));
  }
  for (const o of config.openapi ?? []) out.push(...Object.values(o.headers ?? {}));
  const key = embeddingsKey(config);
  if (key) out.push(key);
  out.push(...Object.values(config.search?.embeddings?.headers ?? {}));
  return out;
}

/** The runtime options a config means. */
export async function runtimeOptionsOf(config: ServiceConfig): Promise<RuntimeOptions> {
  const { db, dataDir } = databaseOf(config);
  const builtins: RuntimeOptions["builtins"] = {};
  if (config.builtins?.state !== false) builtins.state = { ...(config.builtins?.state ?? {}) };
  if (config.builtins?.http) builtins.http = config.builtins.http;
  return {
    connectors: await connectorsOf(config),
    db,
    dataDir,
    ...(config.dbAuthToken ? { dbAuthToken: config.dbAuthToken } : {}),
    ...(config.limits ? { limits: config.limits } : {}),
    ...(config.maxLimits ? { maxLimits: config.maxLimits } : {}),
    ...(config.pool ? { pool: config.pool } : {}),
    ...(config.typecheck ? { typecheck: config.typecheck } : {}),
    ...(config.packages ? { packages: config.packages } : {}),
    ...(config.sessions ? { sessions: config.sessions } : {}),
    ...(config.logs ? { logs: config.logs } : {}),
    ...(config.retention ? { retention: config.retention } : {}),
    ...(config.workspaces ? { workspaces: config.workspaces } : {}),
    ...(config.artifacts ? { artifacts: config.artifacts } : {}),
    ...(config.search?.embeddings ? { search: searchOptions(config) } : {}),
    // Host-side secrets the config holds are redacted from logs without being listed again.
    redact: { values: [...(config.redact?.values ?? []), ...configSecrets(config)] },
    sandbox: { allowPrivateNetwork: config.network?.allowPrivateNetwork ?? false },
    builtins,
  };
}

/** Opens the key store beside the runtime's database (its own connection). */
export async function openKeys(
  config: ServiceConfig,
): Promise<{ keys: ApiKeys; db: Db; close(): void }> {
  const { db: url, dataDir } = databaseOf(config);
  if (url.startsWith("file:")) {
    try {
      await Deno.mkdir(dataDir, { recursive: true });
    } catch (err) {
      throw cannotOpen(url, err);
    }
  }
  const db = await openDb(url, config.dbAuthToken);
  try {
    await migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return { keys: new ApiKeys(db, config.keys ?? []), db, close: () => db.close() };
}

/** Starts the service with `config` (host, port and data already resolved by the caller). */
export async function startService(
  config: ServiceConfig,
  options: StartOptions = {},
): Promise<Service> {
  const hostname = config.host ?? DEFAULT_HOST;
  const port = config.port ?? DEFAULT_PORT;
  const runtimeOptions = await runtimeOptionsOf(config);
  const keyStore = await openKeys(config);
  let runtime: Runtime;
  try {
    if (!isLoopback(hostname) && !(await keyStore.keys.any())) {
      throw new CordonError(
        "invalid_config",
        `Refusing to listen on ${hostname} without API keys: anyone who reaches it could run code. Create a key with "deno task keys create --name <name> --scopes execute", or listen on 127.0.0.1`,
      );
    }
    runtime = await createRuntime(runtimeOptions);
  } catch (err) {
    keyStore.close();
    throw err;
  }
  const shutdown = new AbortController();
  const events = new EventLog(runtime, { ...config.events });
  // Ids from the start time (µs): a restarted service's never repeat the last one's.
  const activity = new ActivityFeed(runtime, { firstId: Date.now() * 1000 });
  const deps: ServiceDeps = {
    runtime,
    events,
    activity,
    keys: keyStore.keys,
    background: new Set(),
    gate: new Gate(config.concurrency?.maxRunning, config.concurrency?.maxQueued),
    // The keys' connection: the same database as the runtime's, so keys outlive a restart.
    idempotency: new Idempotency(keyStore.db, runtime),
    shutdown: shutdown.signal,
    startedAt: Date.now(),
    version: VERSION,
  };
  const auth = config.auth ?? "auto";
  const log = options.log;
  const app = createApp(deps, {
    auth,
    maxBodyBytes: config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    ...(log && config.log?.requests !== false ? { log } : {}),
  });
  const stopRunLog = log && config.log?.runs !== false ? runLog(activity, log) : undefined;
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    const listening = Promise.withResolvers<void>();
    server = Deno.serve({
      hostname,
      port,
      onListen: () => listening.resolve(),
      onError: (err) => {
        console.error("[cordon] request failed:", err);
        return new Response("internal error", { status: 500 });
      },
    }, app.fetch);
    await listening.promise;
  } catch (err) {
    stopRunLog?.();
    events.close();
    activity.close();
    await runtime.close();
    keyStore.close();
    if (err instanceof Deno.errors.AddrInUse) {
      throw new CordonError(
        "invalid_config",
        `${hostname}:${port} is taken: stop what listens there, or pass --port (CORDON_PORT)`,
      );
    }
    throw err;
  }
  const addr = server.addr;
  const shownHost = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  let closing: Promise<void> | undefined;
  const service: Service = {
    url: `http://${shownHost}:${addr.port}`,
    hostname: addr.hostname,
    port: addr.port,
    runtime,
    keys: keyStore.keys,
    events,
    db: runtimeOptions.db!,
    authRequired: async () => auth === "keys" || await keyStore.keys.any(),
    close() {
      closing ??= (async () => {
        // Event streams end first: they would otherwise hold the shutdown open.
        shutdown.abort();
        events.close();
        await server.shutdown();
        const grace = options.shutdownGraceMs ?? 30_000;
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          Promise.allSettled([...deps.background]),
          new Promise((r) => timer = setTimeout(r, grace)),
        ]);
        clearTimeout(timer);
        await runtime.close();
        // After the runtime: runs that end during the shutdown still get their lines. Streams
        // of the feed have ended with the shutdown signal already.
        stopRunLog?.();
        activity.close();
        keyStore.close();
      })();
      return closing;
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
  return service;
}

/** The port and host a service uses when nothing is configured. */
export const DEFAULTS = { host: DEFAULT_HOST, port: DEFAULT_PORT } as const;
