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
import type { RuntimeCapabilities } from "./types.ts";

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
  };
}
