/**
 * Admission of an execution, before anything is stored: its request checked
 * (limits, policy, namespace, input), the session it
 * runs in (taken or started) and the workspace it gets (staged, or its
 * session's). A refusal here leaves nothing behind.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { newSecret } from "../../ids.ts";
import type { ExecutionRow } from "../../store/executions.ts";
import { languageOf } from "../../sandbox/languages.ts";
import { normalizeNetAllow, policyKey, type SandboxPolicy } from "../../sandbox/policy.ts";
import { checkNamespace } from "../common/namespace.ts";
import { checkInput } from "./input.ts";
import { checkProgramParams } from "./program_params.ts";
import type { ProgramRunParams } from "../../sandbox/protocol.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import type { EngineParts } from "./parts.ts";
import { type SessionUse, takeSession } from "../sessions/runs.ts";
import { traceIdFor } from "./trace.ts";
import type { ExecuteRequest } from "./types.ts";
import {
  checkWorkspaceRequest,
  prepareWorkspace,
  removeWorkspace,
  type Workspace,
} from "../workspaces/workspace.ts";

/** What admission grants a request: its limits, policy, namespace, session and workspace. */
export interface Admitted {
  limits: Limits;
  policy: SandboxPolicy;
  namespace: string;
  session?: SessionUse;
  workspace?: Workspace;
  /** The request's program, checked (stored with the execution as it is). */
  program?: ProgramRunParams;
}

/** Checks a request and admits it; throws (leaving nothing behind) when it is refused. */
export async function admitRequest(
  parts: EngineParts,
  request: ExecuteRequest,
  executionId?: string,
): Promise<Admitted> {
  if (request === null || typeof request !== "object") {
    throw new CordonError("invalid_request", "execute() takes an object with code");
  }
  const overrides = { ...request.limits };
  if (request.timeoutMs !== undefined) overrides.timeoutMs = request.timeoutMs;
  const limits = resolveLimits(parts.defaults, parts.maxima, overrides);
  const base: SandboxPolicy = {
    heapMiB: limits.heapMiB,
    netAllow: normalizeNetAllow(request.policy?.net),
  };
  const namespace = checkNamespace(request.namespace);
  checkInput(request.input);
  const language = languageOf(request.language);
  if (!language.sessions && (request.session === true || request.sessionId !== undefined)) {
    throw new CordonError(
      "not_supported",
      `${language.name} code cannot run in a session yet; run it without session or sessionId`,
    );
  }
  if (language.name !== "typescript") base.language = language.name;
  const program = request.program === undefined ? undefined : checkProgramParams(request.program);
  if (program && !request.workspace) {
    throw new CordonError("invalid_request", "A program runs in a workspace");
  }
  const { session, workspace, policy } = await admit(parts, request, namespace, base, executionId);
  return { limits, policy, namespace, session, workspace, ...(program ? { program } : {}) };
}

/** The session and workspace an execution gets, and its policy with the workspace in it. */
async function admit(
  parts: EngineParts,
  request: ExecuteRequest,
  namespace: string,
  base: SandboxPolicy,
  executionId?: string,
): Promise<{ session?: SessionUse; workspace?: Workspace; policy: SandboxPolicy }> {
  let policy = base;
  let workspace: Workspace | undefined;
  let session: SessionUse | undefined;
  const held = request.sessionId === undefined
    ? undefined
    : parts.sessions?.peek(String(request.sessionId));
  if (request.workspace !== undefined && !held) {
    if (!parts.workspaces) {
      throw new CordonError("not_supported", "This runtime has no workspaces");
    }
    const wanted = checkWorkspaceRequest(request.workspace);
    if (request.sessionId !== undefined) {
      throw new CordonError(
        "invalid_request",
        "A session's workspace is given when the session starts (session: true)",
      );
    }
    const traceparent = typeof request.traceparent === "string" ? request.traceparent : undefined;
    workspace = await prepareWorkspace(wanted, {
      ...parts.workspaces,
      namespace,
      ...(traceparent ? { traceparent } : {}),
      ...(executionId ? { execId: executionId } : {}),
    });
  } else if (held?.workspace) {
    // A session's executions share its workspace; this one may say what to collect.
    const asked = request.workspace === undefined
      ? undefined
      : checkWorkspaceRequest(request.workspace);
    if (asked && Object.keys(asked).some((k) => k !== "outputs")) {
      throw new CordonError(
        "invalid_request",
        "In a session, an execution's workspace may only name outputs; files are staged when the session starts",
      );
    }
    const outputs = asked?.outputs;
    // What preparing it warned of was reported by the run that started the session.
    const { warnings: _reported, ...kept } = held.workspace;
    workspace = { ...kept, outputs, persist: true };
  } else if (request.workspace !== undefined) {
    throw new CordonError("invalid_request", "This session was started without a workspace");
  }
  if (workspace) policy = { ...policy, workspaceDir: workspace.dir };
  try {
    session = await takeSession(
      parts.sessions,
      request,
      namespace,
      parts.declarationHash,
      policyKey(policy),
    );
  } catch (err) {
    if (workspace && !held && parts.workspaces) {
      await removeWorkspace(parts.workspaces.root, workspace.id);
    }
    throw err;
  }
  if (session?.status === "created" && workspace) {
    // The session keeps it until it ends (then it goes, unless it was asked to persist).
    session.live.workspace = workspace;
    workspace = { ...workspace, persist: true };
  }
  return { session, workspace, policy };
}

/** The stored row of an admitted execution, `running`, in its first pass. */
export function executionRow(
  parts: EngineParts,
  id: string,
  request: ExecuteRequest,
  admitted: Admitted,
): ExecutionRow {
  const { namespace, limits, policy, session, workspace, program } = admitted;
  const now = Date.now();
  return {
    id,
    namespace,
    logRef: newSecret("log"),
    ...(session ? { sessionId: session.live.id } : {}),
    traceId: traceIdFor(request.traceparent, id),
    code: String(request.code ?? ""),
    input: request.input,
    status: "running",
    connectors: parts.registry.names(),
    declarationHash: parts.declarationHash,
    limits: { ...limits },
    policy: {
      net: policy.netAllow,
      ...(workspace ? { workspace } : {}),
      ...(policy.language ? { language: policy.language } : {}),
      ...(program ? { program } : {}),
    },
    passes: 1,
    createdAt: now,
    updatedAt: now,
  };
}
