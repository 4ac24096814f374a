/**
 * The runtime's connectors: the caller's and the enabled built-ins, started
 * together (all or none), kept in one registry, their tool-list changes
 * reaching the catalogue, checked on demand, and closed with the runtime.
 *
 * @module
 */
import { httpConnector, stateConnector } from "../../connectors/builtin/mod.ts";
import { ConnectorRegistry } from "../../connectors/registry.ts";
import type { Connector, ConnectorCheck } from "../../connectors/types.ts";
import { CordonError } from "../../errors.ts";
import type { Db } from "../../store/client.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { RuntimeOptions } from "./options.ts";

/** The caller's connectors and the built-ins `options` enables, started, in one registry. */
export async function openConnectors(
  options: RuntimeOptions,
  db: Db,
): Promise<{ connectors: Connector[]; registry: ConnectorRegistry }> {
  const connectors = [...(options.connectors ?? [])];
  if (options.builtins?.state) connectors.push(stateConnector({ ...options.builtins.state, db }));
  if (options.builtins?.http) connectors.push(httpConnector(options.builtins.http));
  await startConnectors(connectors);
  try {
    return { connectors, registry: new ConnectorRegistry(connectors) };
  } catch (err) {
    await closeConnectors(connectors);
    throw err;
  }
}

/** Starts every connector that needs it, at once; if one fails, stops the others and says which. */
async function startConnectors(connectors: readonly Connector[]): Promise<void> {
  const started = await Promise.allSettled(connectors.map((c) => c.start?.()));
  const failed = started.findIndex((r) => r.status === "rejected");
  if (failed === -1) return;
  await closeConnectors(connectors);
  const reason = (started[failed] as PromiseRejectedResult).reason;
  throw new CordonError(
    "connector_unavailable",
    `Connector "${connectors[failed].name}" did not start: ${
      reason instanceof Error ? reason.message : String(reason)
    }`,
  );
}

/** Closes every connector, whatever each one's close does. */
export async function closeConnectors(connectors: readonly Connector[]): Promise<void> {
  await Promise.allSettled(connectors.map((c) => c.close?.()));
}

/**
 * A connector whose tools change (MCP list_changed) gets new declarations, index and hash;
 * returns the functions that stop listening.
 */
export function watchToolChanges(
  connectors: readonly Connector[],
  registry: ConnectorRegistry,
  catalogue: Catalogue,
): (() => void)[] {
  return connectors.flatMap((c) =>
    c.onToolsChanged
      ? [c.onToolsChanged(() => {
        try {
          registry.refresh(c.name);
          catalogue.toolsChanged();
        } catch {
          // A list with a bad tool name is refused; the old one stays.
        }
      })]
      : []
  );
}

/** Whether a connector can serve calls now (`connector_not_found` if there is none). */
export async function checkConnector(
  registry: ConnectorRegistry,
  name: string,
): Promise<ConnectorCheck> {
  const connector = registry.connector(String(name));
  if (!connector) {
    throw new CordonError("connector_not_found", `There is no connector "${name}"`);
  }
  if (!connector.handle) return { ready: true, info: { tools: connector.tools.length } };
  try {
    return await connector.handle.check();
  } catch (err) {
    const info = err instanceof CordonError
      ? err.toInfo()
      : { code: "connector_unavailable", message: String(err) };
    return { ready: false, problems: [{ code: info.code, message: info.message }] };
  }
}
