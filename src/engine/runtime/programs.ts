/**
 * The runtime's program API: `runProgram`, `startProgram` and the held
 * interactive sessions, over the runtime's own `execute` (each program is an
 * execution: journaled, limited, in a locked-down child).
 *
 * @module
 */
import { join } from "node:path";
import { CordonError, errorInfo } from "../../errors.ts";
import type { Engine } from "../execution/engine.ts";
import type { ExecuteHooks, ExecuteRequest, ExecuteResult } from "../execution/types.ts";
import { ProgramRegistry } from "../programs/registry.ts";
import type { ProgramInfo } from "../programs/registry.ts";
import {
  type ProgramHost,
  type ProgramOptions,
  runProgram,
  startProgram,
} from "../programs/runner.ts";
import type {
  InteractiveProgramSpec,
  ProgramSession,
  RunEnvProvider,
  RunProgramSpec,
  RunResult,
} from "../programs/types.ts";
import { insidePath } from "../workspaces/request.ts";
import type { WorkspaceRequest } from "../workspaces/types.ts";
import { readMeta } from "../workspaces/owner.ts";
import { removeWorkspace } from "../workspaces/workspace.ts";
import { buildBlockSpec } from "../code/delimited.ts";
import { executeInline, type InlineBlock } from "../programs/inline.ts";

/** The largest program file read from a workspace. */
const MAX_PROGRAM_BYTES = 4 * 1024 * 1024;

/** Programs in workspaces (seed 002's `RunProgram`, `StartProgram`, `ProgramSession`). */
export interface ProgramsApi {
  /**
   * Runs a program of the workspace to its end: `{ stdout, stderr, exitCode, durationMs,
   * timedOut, executionId }`. `workspace` is a workspace request (`{ id }` of a kept one, or
   * `{ files, inputs, persist }`).
   */
  runProgram(
    workspace: WorkspaceRequest,
    spec: RunProgramSpec,
    options?: ProgramOptions,
  ): Promise<RunResult>;
  /** Starts a program and returns its session at once (poll, log, write, kill, close, state). */
  startProgram(
    workspace: WorkspaceRequest,
    spec: InteractiveProgramSpec,
    options?: ProgramOptions,
  ): Promise<ProgramSession>;
  /** A held session by id (`not_found` when this node holds none of that namespace). */
  programSession(id: string, options?: { namespace?: string }): ProgramSession;
  /** The held sessions, newest first. */
  programSessions(options?: { namespace?: string }): ProgramInfo[];
  /**
   * The document's `ExecuteInline`: writes code blocks under the workspace's `src/` and runs
   * them in order as programs (`python3 code_0.py`, `bash code_1.sh`, …), stopping at the
   * first that fails; one result for all.
   */
  executeInline(
    workspace: WorkspaceRequest,
    blocks: readonly InlineBlock[],
    options?: ProgramOptions & { timeoutMs?: number },
  ): Promise<RunResult>;
  /** Kills (if it runs) and forgets a session. */
  closeProgram(id: string, options?: { namespace?: string }): Promise<void>;
}

/** Reads a program file of the workspace a request names, or undefined when it has none. */
async function readWorkspaceFile(
  root: string,
  workspace: WorkspaceRequest,
  path: string,
  namespace: string,
): Promise<string | undefined> {
  const rel = insidePath(path);
  const inline = workspace.files?.[rel];
  if (inline !== undefined) {
    return typeof inline === "string" ? inline : new TextDecoder().decode(
      Uint8Array.from(atob(inline.base64), (c) => c.charCodeAt(0)),
    );
  }
  if (workspace.id === undefined) return undefined;
  const meta = await readMeta(root, workspace.id);
  if (!meta || meta.namespace !== namespace) {
    throw new CordonError("not_found", `There is no persisted workspace ${workspace.id}`);
  }
  const dir = await Deno.realPath(join(root, workspace.id));
  let real: string;
  try {
    real = await Deno.realPath(join(dir, rel));
  } catch {
    return undefined;
  }
  if (!real.startsWith(dir + "/")) {
    throw new CordonError("invalid_request", `${path} leaves the workspace`);
  }
  const info = await Deno.stat(real);
  if (!info.isFile) return undefined;
  if (info.size > MAX_PROGRAM_BYTES) {
    throw new CordonError("limit_exceeded", `${path} is over ${MAX_PROGRAM_BYTES} bytes`);
  }
  return await Deno.readTextFile(real);
}

/** Builds the program API of a runtime. */
export function programsApi(
  engine: Engine,
  execute: (request: ExecuteRequest, hooks?: ExecuteHooks) => Promise<ExecuteResult>,
  workspaceRoot: string,
  runEnv: RunEnvProvider | undefined,
  assertOpen: () => void,
): ProgramsApi & { closeAllPrograms(): Promise<void> } {
  const held = new ProgramRegistry();
  const programHost: ProgramHost = {
    execute,
    subscribe: (listener) => engine.parts.events.subscribe(listener),
    readWorkspaceFile: (ws, path, ns) =>
      readWorkspaceFile(workspaceRoot, ws, path, ns ?? "default"),
    stdin: (id, data, eof) => engine.live.get(id)?.pass.stdin(data, eof) ?? false,
    stop: (id) => {
      const run = engine.live.get(id);
      run?.pass.abort(errorInfo("interrupted", "The program was killed"));
      return run !== undefined;
    },
    ...(runEnv ? { runEnv } : {}),
  };
  return {
    runProgram: (
      workspace,
      spec,
      options,
    ) => (assertOpen(), runProgram(programHost, workspace, spec, options)),
    startProgram: async (workspace, spec, options) => {
      assertOpen();
      held.admit();
      const live = await startProgram(programHost, workspace, spec, options);
      held.add(live, spec.cmd, options?.namespace ?? "default");
      return live;
    },
    programSession: (id, o) => held.get(id, o?.namespace),
    programSessions: (o) => held.list(o?.namespace),
    closeProgram: (id, o) => held.close(id, o?.namespace),
    executeInline: (workspace, blocks, options) => {
      assertOpen();
      const host = {
        runProgram: (ws: WorkspaceRequest, spec: RunProgramSpec, o?: ProgramOptions) =>
          runProgram(programHost, ws, spec, o),
        removeWorkspace: (id: string) => removeWorkspace(workspaceRoot, id),
      };
      return executeInline(host, buildBlockSpec, workspace, blocks, options);
    },
    closeAllPrograms: () => held.closeAll(),
  };
}
