/**
 * Init hooks (run once, in declaration order, after a workspace is created)
 * and the `WorkspaceRegistry`, whose concurrent first acquires of one id
 * coalesce into a single creation, so hooks run at most once per id.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { stageInputs } from "./inputs.ts";
import { loadMetadata, saveMetadata } from "./metadata.ts";
import { insidePath } from "./request.ts";
import type { InputSpec, WorkspaceInitEnv, WorkspaceInitFn } from "./types.ts";
import type { RunProgramSpec } from "./spec_types.ts";
import { ATTR_CMD, ATTR_CWD, ATTR_EXIT_CODE, ATTR_TIMED_OUT, inSpan } from "./tracing.ts";
import { SPAN_WORKSPACE_RUN, traceContext } from "./tracing.ts";

/** One init-time program run (a run spec without limits); `name` labels its errors. */
export interface WorkspaceInitCommand extends Omit<RunProgramSpec, "limits"> {
  /** Its name, in the errors of this command. */
  name?: string;
}

/** A declarative init hook: stage `inputs`, then run `commands` in order. */
export interface WorkspaceInitSpec {
  /** Inputs staged, in order. */
  inputs?: InputSpec[];
  /** Commands run, in order, after the inputs. */
  commands?: WorkspaceInitCommand[];
}

/**
 * An init hook from a spec: its inputs staged (recorded in metadata.json), then its commands
 * run through the host's runner; a non-zero exit fails the hook (`script_error` naming the
 * command by `name`, else its index).
 */
export function workspaceInitHook(spec: WorkspaceInitSpec): WorkspaceInitFn {
  return async (env: WorkspaceInitEnv) => {
    const dir = env.workspace.dir;
    if (spec.inputs?.length) {
      const { metadata } = await loadMetadata(dir);
      await stageInputs(dir, spec.inputs, env.host, metadata);
      await saveMetadata(dir, metadata);
    }
    for (const [i, c] of (spec.commands ?? []).entries()) {
      const label = c.name ?? String(i);
      if (!env.runner) {
        throw new CordonError(
          "not_supported",
          `init command ${label}: this runtime has no program runner`,
        );
      }
      if (c.cwd !== undefined) insidePath(c.cwd);
      const runner = env.runner;
      const attrs = { [ATTR_CMD]: c.cmd, [ATTR_CWD]: c.cwd ?? "" };
      const r = await inSpan(
        SPAN_WORKSPACE_RUN,
        attrs,
        traceContext(env.host.traceparent),
        async (span) => {
          const { name: _label, ...spec } = c;
          const result = await runner.runProgram(env.workspace, spec);
          span.setAttribute(ATTR_EXIT_CODE, result.exitCode);
          span.setAttribute(ATTR_TIMED_OUT, result.timedOut);
          return result;
        },
      );
      if (r.exitCode !== 0 || r.timedOut) {
        throw new CordonError(
          "script_error",
          `init command ${label} ${r.timedOut ? "timed out" : `exited with code ${r.exitCode}`}`,
          { details: { command: label, exitCode: r.exitCode, timedOut: r.timedOut } },
        );
      }
    }
  };
}

/** Runs hooks in order; a failure is rethrown labelled with the hook's index. */
export async function runInitHooks(
  hooks: readonly WorkspaceInitFn[],
  /** Environment variables for the run (nothing of the host's besides). */
  env: WorkspaceInitEnv,
): Promise<void> {
  for (const [i, hook] of hooks.entries()) {
    try {
      await hook(env);
    } catch (err) {
      const info = err instanceof CordonError ? err : undefined;
      throw new CordonError(
        info?.code ?? "invalid_state",
        `workspace init hook ${i}: ${(err as Error)?.message ?? String(err)}`,
        { details: { hook: i, ...info?.details }, cause: err },
      );
    }
  }
}

/**
 * Logical ids → workspaces, for reuse within a process. `acquire(id)` creates the workspace
 * the first time (with `create`, which runs the init hooks) and returns the same one after;
 * concurrent first acquires of one id share one creation. A failed creation is forgotten, so
 * the next acquire tries again.
 */
export class WorkspaceRegistry<W> {
  #create: (id: string) => Promise<W>;
  #entries = new Map<string, Promise<W>>();

  /** A registry creating workspaces with `create` (e.g. `prepareWorkspace` with `persist`). */
  constructor(create: (id: string) => Promise<W>) {
    this.#create = create;
  }

  /** The workspace for `id`, created once. */
  acquire(id: string): Promise<W> {
    let entry = this.#entries.get(id);
    if (!entry) {
      entry = this.#create(id);
      this.#entries.set(id, entry);
      entry.catch(() => {
        if (this.#entries.get(id) === entry) this.#entries.delete(id);
      });
    }
    return entry;
  }

  /** Forgets `id` (the workspace itself is not removed); true when it was known. */
  release(id: string): boolean {
    return this.#entries.delete(id);
  }

  /** The logical ids held. */
  ids(): string[] {
    return [...this.#entries.keys()];
  }
}
