/**
 * What a runtime reports it can do on this host: versions, guards, pool,
 * limits, database (without credentials), declarations and packages.
 *
 * @module
 */
import type { MemoryGuard } from "../../sandbox/cgroup.ts";
import type { OrphanGuard } from "../../sandbox/orphan_guard.ts";
import type { Engine } from "../execution/engine.ts";
import { enforcedLimits } from "../execution/enforcement.ts";
import type { RuntimeSettings } from "./settings.ts";
import type { RuntimeCapabilities, WorkspaceCapabilities } from "./types.ts";
import type { WorkspaceOptions } from "./options.ts";
import { WORKSPACE_DEFAULTS, type WorkspaceHost } from "../workspaces/workspace.ts";
import { CordonError } from "../../errors.ts";

/** The staging part of the workspace host from the runtime's options, checked. */
export function workspaceStaging(
  o: WorkspaceOptions | undefined,
): Pick<WorkspaceHost, "hostRoots" | "skillsRoot" | "runner" | "initHooks"> {
  const roots = o?.hostRoots ?? [];
  if (!Array.isArray(roots) || roots.some((r) => typeof r !== "string" || !r.startsWith("/"))) {
    throw new CordonError("invalid_request", "workspaces.hostRoots lists absolute host paths");
  }
  if (o?.skillsRoot !== undefined && !String(o.skillsRoot).startsWith("/")) {
    throw new CordonError("invalid_request", "workspaces.skillsRoot is an absolute host path");
  }
  return {
    ...(roots.length ? { hostRoots: [...roots] } : {}),
    ...(o?.skillsRoot ? { skillsRoot: o.skillsRoot } : {}),
    ...(o?.runner ? { runner: o.runner } : {}),
    ...(o?.initHooks?.length ? { initHooks: [...o.initHooks] } : {}),
  };
}

/**
 * What a workspace offers, in the document's Capabilities fields: each run is its own
 * `deno run` child held by Deno permissions (read and write of its workspace only);
 * network only to the hosts an execution's `policy.net` lists (none by default); staged
 * trees are copies, never mounts; console lines stream as `log` events while a run goes on;
 * the disk bound is the default workspace quota (a request may set its own `quotaBytes`).
 */
export function workspaceCapabilities(): WorkspaceCapabilities {
  return {
    isolation: "process",
    networkAllowed: true,
    readOnlyMount: false,
    streaming: true,
    maxDiskBytes: WORKSPACE_DEFAULTS.quotaBytes,
  };
}

/** The runtime's capabilities now (the pool's idle count and the declaration hash change). */
export function runtimeCapabilities(
  engine: Engine,
  settings: RuntimeSettings,
  host: {
    memoryGuard: MemoryGuard;
    orphanGuard: OrphanGuard;
    dbUrl: string;
    packages: Record<string, string>;
  },
): RuntimeCapabilities {
  const { memoryGuard, orphanGuard, dbUrl } = host;
  return {
    deno: Deno.version.deno,
    transpiler: "sucrase",
    memoryGuard: { kind: memoryGuard.kind, reason: memoryGuard.reason },
    enforcedLimits: enforcedLimits(memoryGuard),
    orphanGuard: { kind: orphanGuard.kind, reason: orphanGuard.reason },
    pool: { size: settings.poolSize, idle: engine.poolIdle },
    limits: { ...settings.defaults },
    maxLimits: { ...settings.maxima },
    db: dbUrl.startsWith("file:") || dbUrl === ":memory:"
      ? dbUrl
      : dbUrl.replace(/\/\/[^@/]*@/, "//"),
    nodeId: engine.nodeId,
    declarationHash: engine.parts.declarationHash,
    packages: { ...host.packages },
    workspace: workspaceCapabilities(),
  };
}
