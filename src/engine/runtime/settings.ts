/**
 * A runtime's options, checked and with their defaults filled in, before
 * anything is opened: a bad option leaves nothing behind.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { artifactMaxBytes } from "../artifacts/api.ts";
import { configureLimits, type Limits } from "../execution/limits.ts";
import { logRetainMs, runtimeRedactor } from "../logs/settings.ts";
import type { Redact } from "../logs/redact.ts";
import { TYPECHECK_MODES, type TypecheckMode } from "../typecheck/checker.ts";
import { type SemanticSettings, semanticSettings } from "../semantic/mod.ts";
import { DEFAULT_WORKSPACE_RETAIN_MS } from "../workspaces/workspace.ts";
import {
  DEFAULT_DURABILITY,
  DEFAULT_POOL_SIZE,
  type DurabilityOptions,
  type RuntimeOptions,
} from "./options.ts";
import { type RetentionSettings, retentionSettings } from "./retention.ts";

/** Every setting a runtime runs with. */
export interface RuntimeSettings {
  /** What an execution gets when it asks for nothing. */
  defaults: Limits;
  /** The most an execution may ask for. */
  maxima: Limits;
  /** The type check an execution gets when it does not say. */
  typecheck: TypecheckMode;
  /** Holding paused children, leases, expiry. */
  durability: DurabilityOptions;
  /** Children kept warm. */
  poolSize: number;
  /** Python children kept warm once Python is used. */
  pythonPool: number;
  /** The most bytes one artifact version holds. */
  artifactBytes: number;
  /** Applied to console lines, code and messages before they are kept. */
  redact: Redact;
  /** How long console lines of ended executions are kept (ms). */
  logRetainMs: number;
  /** How long, and how many, ended executions are kept. */
  retention: RetentionSettings;
  /** How long a kept workspace may sit unused (ms). */
  workspaceRetainMs: number;
  /** Semantic search, when the runtime has an embedder. */
  search?: SemanticSettings;
}

/** Checks `options` and fills in the defaults; throws `invalid_request` for a bad one. */
export function runtimeSettings(options: RuntimeOptions): RuntimeSettings {
  const workspaceRetainMs = options.workspaces?.retainMs ?? DEFAULT_WORKSPACE_RETAIN_MS;
  if (!(workspaceRetainMs > 0)) {
    throw new CordonError("invalid_request", "workspaces.retainMs must be a positive number of ms");
  }
  const typecheck = options.typecheck ?? "warn";
  if (!TYPECHECK_MODES.includes(typecheck)) {
    throw new CordonError("invalid_request", `Unknown typecheck mode "${typecheck}"`);
  }
  const { defaults, maxima } = configureLimits(options.limits, options.maxLimits);
  return {
    defaults,
    maxima,
    typecheck,
    durability: { ...DEFAULT_DURABILITY, ...options.durability },
    poolSize: options.pool?.size ?? DEFAULT_POOL_SIZE,
    pythonPool: pythonPoolSize(options.python?.pool),
    artifactBytes: artifactMaxBytes(options.artifacts),
    redact: runtimeRedactor(options),
    logRetainMs: logRetainMs(options.logs),
    retention: retentionSettings(options.retention),
    workspaceRetainMs,
    search: semanticSettings(options.search),
  };
}

/** `python.pool`, checked (default 1). */
function pythonPoolSize(size: unknown): number {
  if (size === undefined) return 1;
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > 64) {
    throw new CordonError("invalid_request", "python.pool must be an integer from 0 to 64");
  }
  return size;
}
