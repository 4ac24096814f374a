/**
 * The executor document's `Engine` as one object: `runtime.workspaceEngine()`
 * returns a manager (create and clean up workspaces), a file system (put
 * files, stage directories and inputs, collect files and outputs), a runner
 * (`runProgram`, `startProgram`), `describe()` and a `WorkspaceRegistry`,
 * all acting for one namespace on the runtime's workspaces. `withRunEnv` is
 * the document's `NewEnvInjectingEngine`.
 *
 * @module
 */
import { join } from "node:path";
import { CordonError } from "../../errors.ts";
import type { ProgramsApi } from "./programs.ts";
import { workspaceCapabilities } from "./capabilities.ts";
import type { RunEnvProvider, RunProgramSpec } from "../programs/types.ts";
import { WorkspaceRegistry } from "../workspaces/hooks.ts";
import { metaPath, readMeta, writeMeta } from "../workspaces/owner.ts";
import { prepareWorkspace, removeWorkspace } from "../workspaces/workspace.ts";
import {
  type InputSpec,
  type Workspace,
  WORKSPACE_DEFAULTS,
  type WorkspaceHost,
} from "../workspaces/types.ts";
import { collectFiles, putFiles, stageDirectory, stageInputsInto } from "../workspaces/files.ts";
import { collectOutputs } from "../workspaces/outputs.ts";
import { checkWorkspaceRequest } from "../workspaces/check.ts";
import {
  ATTR_CMD,
  ATTR_CWD,
  ATTR_EXIT_CODE,
  ATTR_TIMED_OUT,
  inSpan,
} from "../workspaces/tracing.ts";
import { SPAN_WORKSPACE_RUN, traceContext } from "../workspaces/tracing.ts";
import type {
  WorkspaceEngine,
  WorkspaceEngineOptions,
  WorkspaceFS,
  WorkspaceHandle,
  WorkspaceManager,
  WorkspacePolicy,
  WorkspaceRunner,
} from "./workspace_engine_types.ts";
export type * from "./workspace_engine_types.ts";

/** What the engine is built from. */
export interface WorkspaceEngineDeps {
  /** The runtime's workspace host (without a namespace: each engine brings its own). */
  host: Omit<WorkspaceHost, "namespace">;
  /** The runtime's program API. */
  programs: Pick<ProgramsApi, "runProgram" | "startProgram">;
  /** Throws `runtime_closed` once the runtime is closed. */
  assertOpen: () => void;
}

/** Ids removed by `cleanup` remembered, so a repeated cleanup does nothing. */
const REMEMBERED_REMOVALS = 10_000;
const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function bad(message: string): CordonError {
  return new CordonError("invalid_request", message);
}

function notFound(id: unknown): CordonError {
  return new CordonError(
    "not_found",
    `There is no workspace ${String(id).slice(0, 80)} in this namespace`,
  );
}

function checkPolicy(policy: WorkspacePolicy | undefined): Required<WorkspacePolicy> {
  if (policy !== undefined && (policy === null || typeof policy !== "object")) {
    throw new CordonError("invalid_request", "policy is { isolated?, persist?, maxDiskBytes? }");
  }
  const { isolated = true, persist = false, maxDiskBytes = 0 } = policy ?? {};
  if (typeof isolated !== "boolean" || typeof persist !== "boolean") {
    throw new CordonError("invalid_request", "policy.isolated and policy.persist are booleans");
  }
  if (!Number.isSafeInteger(maxDiskBytes) || maxDiskBytes < 0) {
    throw new CordonError("invalid_request", "policy.maxDiskBytes is a whole number of bytes");
  }
  return { isolated, persist, maxDiskBytes };
}

/**
 * A factory of workspace engines over one runtime's workspaces. Engines of one namespace share
 * their registry, and every engine shares the memory of removed workspaces.
 */
export function workspaceEngineFactory(
  deps: WorkspaceEngineDeps,
): (options?: WorkspaceEngineOptions) => WorkspaceEngine {
  const removed = new Set<string>();
  const registries = new Map<string, WorkspaceRegistry<WorkspaceHandle>>();
  return (options = {}) => {
    const namespace = options.namespace ?? "default";
    if (typeof namespace !== "string" || !NAMESPACE.test(namespace)) {
      throw new CordonError("invalid_request", "namespace is 1-128 letters, digits, . _ -");
    }
    const tp = typeof options.traceparent === "string" ? options.traceparent : undefined;
    const engine = buildEngine(deps, namespace, tp, removed, registries);
    return options.runEnv ? withRunEnv(engine, options.runEnv) : engine;
  };
}

function buildEngine(
  deps: WorkspaceEngineDeps,
  namespace: string,
  traceparent: string | undefined,
  removed: Set<string>,
  registries: Map<string, WorkspaceRegistry<WorkspaceHandle>>,
): WorkspaceEngine {
  const trace = traceparent ? { traceparent } : {};
  const host: WorkspaceHost = { ...deps.host, namespace, ...trace };
  const ctx = () => traceContext(traceparent);
  const root = host.root;
  /** The workspace `ws` names, checked to be this namespace's; its last use is now. */
  const open = async (ws: WorkspaceHandle): Promise<Workspace> => {
    deps.assertOpen();
    const id = ws?.id;
    const owner = typeof id === "string" ? await readMeta(root, id) : undefined;
    if (!owner || owner.namespace !== namespace) throw notFound(id);
    const dir = await Deno.realPath(join(root, id)).catch(() => undefined);
    if (dir === undefined) throw notFound(id);
    const now = new Date();
    await Deno.utime(metaPath(root, id), now, now).catch(() => {});
    const quotaBytes = owner.policy?.maxDiskBytes || WORKSPACE_DEFAULTS.quotaBytes;
    const quotaEntries = WORKSPACE_DEFAULTS.quotaEntries;
    return { id, dir, persist: true, quotaBytes, quotaEntries, ...trace };
  };
  const request = async (ws: WorkspaceHandle) => {
    const w = await open(ws);
    return { id: w.id, quotaBytes: w.quotaBytes };
  };
  const manager: WorkspaceManager = {
    async createWorkspace(execId, policy) {
      deps.assertOpen();
      if (typeof execId !== "string" || execId.length > 256) {
        throw new CordonError("invalid_request", "execId is a string of at most 256 characters");
      }
      const p = checkPolicy(policy);
      const quota = p.maxDiskBytes > 0 ? { quotaBytes: p.maxDiskBytes } : {};
      const ws = await prepareWorkspace(
        { persist: true, ...quota },
        { ...host, ...(execId ? { execId } : {}) },
      );
      const owner = await readMeta(root, ws.id);
      const recorded = {
        persist: p.persist,
        ...(p.maxDiskBytes ? { maxDiskBytes: p.maxDiskBytes } : {}),
      };
      await writeMeta(root, ws.id, { ...owner, namespace, policy: recorded });
      return { id: ws.id, path: ws.dir };
    },
    async cleanup(ws) {
      deps.assertOpen();
      const id = ws?.id;
      const key = `${namespace}\0${String(id)}`;
      const owner = typeof id === "string" ? await readMeta(root, id) : undefined;
      if (!owner) {
        if (removed.has(key)) return;
        throw notFound(id);
      }
      if (owner.namespace !== namespace) throw notFound(id);
      if (owner.policy?.persist) return;
      await removeWorkspace(root, id, trace);
      if (removed.size >= REMEMBERED_REMOVALS) removed.delete(removed.values().next().value!);
      removed.add(key);
    },
  };
  const fs: WorkspaceFS = {
    putFiles: async (ws, files) => {
      const w = await open(ws);
      await putFiles(w.dir, files, w, ctx());
    },
    stageDirectory: async (ws, src, to, opts) => {
      const w = await open(ws);
      return await stageDirectory(w.dir, host, src, to, opts, w, ctx());
    },
    collect: async (ws, patterns) => collectFiles(await open(ws), host, patterns),
    stageInputs: async (ws, specs) => {
      const w = await open(ws);
      if (!Array.isArray(specs)) throw bad("specs is a list of { from, to?, mode?, pin? }");
      const { inputs } = checkWorkspaceRequest({ inputs: [...specs] });
      await stageInputsInto(w, host, (inputs ?? []) as InputSpec[]);
    },
    collectOutputs: async (ws, spec) => {
      const w = await open(ws);
      if (spec === null || typeof spec !== "object") throw bad("spec is { globs, ... }");
      const { outputs } = checkWorkspaceRequest({ outputs: spec });
      const report = await collectOutputs({ ...w, outputs }, host);
      return report.manifest ?? { files: [], limitsHit: false };
    },
  };
  const runner: WorkspaceRunner = {
    runProgram: async (ws, spec) => {
      const req = await request(ws);
      const attrs = { [ATTR_CMD]: String(spec?.cmd), [ATTR_CWD]: String(spec?.cwd ?? "") };
      return await inSpan(SPAN_WORKSPACE_RUN, attrs, ctx(), async (span) => {
        const r = await deps.programs.runProgram(req, spec, { namespace, ...trace });
        span.setAttribute(ATTR_EXIT_CODE, r.exitCode);
        span.setAttribute(ATTR_TIMED_OUT, r.timedOut);
        return r;
      });
    },
    startProgram: async (ws, spec) =>
      deps.programs.startProgram(await request(ws), spec, { namespace, ...trace }),
  };
  let registry = registries.get(namespace);
  if (!registry) {
    registry = new WorkspaceRegistry((id) => manager.createWorkspace(id));
    registries.set(namespace, registry);
  }
  return {
    namespace,
    manager,
    fs,
    runner,
    registry,
    describe: () => workspaceCapabilities(),
  };
}

/**
 * The document's `NewEnvInjectingEngine`: `engine` with a runner whose `runProgram` and
 * `startProgram` merge `provider`'s variables into each spec's environment, under the spec's
 * own (the spec wins). The runtime's own `runEnv`, if any, is under both.
 */
export function withRunEnv(engine: WorkspaceEngine, provider: RunEnvProvider): WorkspaceEngine {
  if (typeof provider !== "function") return engine;
  const inject = async <S extends RunProgramSpec>(ws: WorkspaceHandle, spec: S): Promise<S> => {
    if (spec === null || typeof spec !== "object") return spec;
    const given = await provider({
      workspaceId: ws?.id,
      cmd: spec.cmd,
      namespace: engine.namespace,
    });
    const env = spec.env && typeof spec.env === "object" ? spec.env : {};
    return { ...spec, env: { ...(given ?? {}), ...env } };
  };
  const inner = engine.runner;
  return {
    ...engine,
    runner: {
      runProgram: async (ws, spec) => inner.runProgram(ws, await inject(ws, spec)),
      startProgram: async (ws, spec) => inner.startProgram(ws, await inject(ws, spec)),
    },
    describe: () => engine.describe(),
  };
}
