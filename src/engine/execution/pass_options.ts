/**
 * The shapes around a pass: what it needs ({@link PassOptions}), the
 * events it reports, the decisions it takes, and the hook through which a
 * capability above the core answers a script's other requests
 * ({@link ScriptRequests}).
 *
 * @module
 */
import type { ProgramRunParams } from "../../sandbox/protocol.ts";
import type { ConnectorRegistry } from "../../connectors/registry.ts";
import type { ErrorInfo } from "../../errors.ts";
import type { MemoryGuardKind } from "../../sandbox/cgroup.ts";
import type { SandboxChild } from "../../sandbox/child.ts";
import type { CallEntry } from "../../store/calls.ts";
import type { LogEntry } from "../logs/buffer.ts";
import type { PreparedSource } from "../source/source.ts";
import type { WorkspaceQuota } from "../workspaces/quota.ts";
import type { CallJournal } from "./journal.ts";
import type { Limits } from "./limits.ts";

/** How a pass's run ended. */
export type Outcome =
  /**
   * `json`: the value's encoded text, when it is over the inline limit and is to be stored;
   * `data`: that text's UTF-8 bytes, when they were already made.
   */
  | { ok: true; value: unknown; json?: string; data?: Uint8Array<ArrayBuffer> }
  | { ok: false; error: ErrorInfo };

/** What a pass reports. */
export type PassEvent =
  | { kind: "paused"; pending: CallEntry[] }
  | { kind: "ended"; outcome: Outcome }
  | { kind: "released" };

/** A decision for a waiting call. */
export type Decision =
  | { kind: "approved" }
  | { kind: "rejected"; error: ErrorInfo }
  | { kind: "resolved"; value: unknown };

/**
 * A script's requests besides tool calls and steps, answered by a capability above the core
 * (the `codemode` platform: search, describe, snippets, handles, log and recovery readers).
 * They count against `maxToolCalls` and wait while the run is paused.
 */
export interface ScriptRequests {
  /** Whether `method` is one this handler answers. */
  handles(method: string): boolean;
  /** Answers it for a run; what a replay must see again is pinned in `journal`. */
  answer(
    method: string,
    params: unknown,
    run: { namespace: string; journal: CallJournal; signal: AbortSignal },
  ): Promise<unknown>;
}

/** What one pass needs. */
export interface PassOptions {
  executionId: string;
  /** A program run's arguments, environment and input (`runProgram`/`startProgram`). */
  program?: ProgramRunParams;
  /** The execution's namespace: `codemode` sees this namespace's snippets. */
  namespace: string;
  /** A session's pass: the child stays alive after a clean answer. */
  keepChild?: boolean;
  /** The execution's workspace: its directory and quota. */
  workspace?: WorkspaceQuota;
  /** Redacts each console line as it arrives; LogBuffer's built-in shapes when absent. */
  redact?: (text: string) => string;
  /** Sees each console line kept. */
  onLog?: (entry: LogEntry) => void;
  child: SandboxChild;
  /** Ends a child whose run is over and may write nothing (`Children.retire`). */
  retire: (child: SandboxChild) => void;
  pooled: boolean;
  source: PreparedSource;
  input: unknown;
  limits: Limits;
  registry: ConnectorRegistry;
  journal: CallJournal;
  memoryGuard: MemoryGuardKind;
  /** How long a paused child is kept for live continuation. */
  holdMs: number;
  /** Answers the script's requests besides tool calls and steps (`codemode.search`, …). */
  requests?: ScriptRequests;
  /** Sees each applied tool result and the namespace that got it (observed output shapes). */
  observe?(connector: string, tool: string, value: unknown, namespace: string): void;
  /** What the child's requests and notifications wait for: a new execution's row (run_start.ts). */
  gate?: Promise<void>;
}
