/**
 * `runProgram` and `startProgram`: a program of the workspace becomes one
 * Cordon execution (Python, bash or TypeScript in a locked-down child, its
 * tool calls journaled), its console lines become stdout and stderr, and
 * its end becomes an exit status.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { ProgramRunParams } from "../../sandbox/protocol.ts";
import { newId } from "../../ids.ts";
import type { ExecutionEvent } from "../execution/events.ts";
import type { ExecuteHooks, ExecuteRequest, ExecuteResult } from "../execution/types.ts";
import type { WorkspaceRequest } from "../workspaces/types.ts";
import { languageOfShebang, type ProgramLanguage, resolveCommand } from "./command.ts";
import { LiveProgram, type ProgramEnd, type SessionControl } from "./session.ts";
import { checkProgramSpec, programLimits } from "./spec.ts";
import type { InteractiveProgramSpec, RunEnvProvider, RunProgramSpec, RunResult } from "./types.ts";

/** What a program run tells the guest beyond its code (`RunParams.program`). */
export type ProgramParams = ProgramRunParams;

/** The part of a runtime programs need. */
export interface ProgramHost extends SessionControl {
  execute(
    request: ExecuteRequest & { language?: string; program?: ProgramParams },
    hooks?: ExecuteHooks,
  ): Promise<ExecuteResult>;
  subscribe(listener: (event: ExecutionEvent) => void): () => void;
  /** A file of the workspace the request names (inline `files`, or a kept workspace's). */
  readWorkspaceFile(
    workspace: WorkspaceRequest,
    path: string,
    namespace?: string,
  ): Promise<string | undefined>;
  runEnv?: RunEnvProvider;
}

/** Options of one program run. */
export interface ProgramOptions {
  /** The tenant the program runs in (default `default`). */
  namespace?: string;
  /** A W3C `traceparent`: the program's execution joins that trace. */
  traceparent?: string;
}

/** Joins a workspace-relative directory and a path the program named. */
function inCwd(cwd: string, file: string): string {
  const f = file.replace(/^\.\//, "");
  return cwd === "" ? f : `${cwd}/${f}`;
}

async function programCode(
  host: ProgramHost,
  workspace: WorkspaceRequest,
  spec: RunProgramSpec,
  namespace: string | undefined,
): Promise<
  { language: ProgramLanguage; code: string; argv0: string; args: string[]; stdin?: string }
> {
  const cmd = resolveCommand(spec.cmd, spec.args);
  if (cmd.code !== undefined) {
    return {
      language: cmd.language as ProgramLanguage,
      code: cmd.code,
      argv0: "-c",
      args: cmd.args,
      stdin: spec.stdin,
    };
  }
  if (cmd.stdinIsCode) {
    return {
      language: cmd.language as ProgramLanguage,
      code: spec.stdin ?? "",
      argv0: "-",
      args: cmd.args,
    };
  }
  const path = inCwd(spec.cwd ?? "", cmd.file!);
  if (path.startsWith("/") || path.split("/").includes("..")) {
    throw new CordonError("invalid_request", `${cmd.file} is outside the workspace`);
  }
  const text = await host.readWorkspaceFile(workspace, path, namespace);
  if (text === undefined) {
    throw new CordonError(
      "not_found",
      `${spec.cmd}: can't open file '${cmd.file}': no such file in the workspace`,
    );
  }
  const language = cmd.language === "auto" ? languageOfShebang(text) : cmd.language;
  if (!language) {
    throw new CordonError(
      "not_supported",
      `${cmd.file}: Cordon cannot tell how to run it (name it .py, .sh or .ts, or start it with #!)`,
    );
  }
  return { language, code: text, argv0: cmd.file!, args: cmd.args, stdin: spec.stdin };
}

/** How an execution's end reads as a program's. */
export function programEnd(result: ExecuteResult): ProgramEnd {
  if (result.status === "completed") {
    const code = typeof result.result === "number" && Number.isInteger(result.result)
      ? result.result
      : 0;
    return { exitCode: code, timedOut: false };
  }
  if (result.status === "paused") {
    const calls = result.pending.map((p) => `${p.connector}.${p.tool}`).join(", ");
    return {
      exitCode: -1,
      timedOut: false,
      note: `paused: execution ${result.executionId} waits for a decision on ${calls}`,
    };
  }
  const { code, message, details } = result.error;
  if (code === "sandbox_timeout") return { exitCode: -1, timedOut: true, note: message };
  if (code === "interrupted") return { exitCode: -1, timedOut: false, note: message };
  const exit = (details as { exitCode?: unknown } | undefined)?.exitCode;
  const traceback = (details as { traceback?: unknown } | undefined)?.traceback;
  return {
    exitCode: typeof exit === "number" ? exit : 1,
    timedOut: false,
    note: typeof traceback === "string" ? traceback : `${code}: ${message}`,
  };
}

/**
 * Starts a program in `workspace` and returns its session at once (the document's
 * `StartProgram`). Throws a typed error, before anything runs, for a bad spec, a program Cordon
 * cannot run, or a missing file.
 */
export async function startProgram(
  host: ProgramHost,
  workspace: WorkspaceRequest,
  raw: InteractiveProgramSpec,
  options: ProgramOptions = {},
  interactive = true,
): Promise<LiveProgram> {
  const spec = checkProgramSpec(raw);
  const program = await programCode(host, workspace, spec, options.namespace);
  const provided = host.runEnv
    ? await host.runEnv({ workspaceId: workspace.id, cmd: spec.cmd, namespace: options.namespace })
    : {};
  // Provided entries never override the spec's own (as the document's RunEnvProvider).
  const env = { ...checkProgramSpec({ cmd: "env", env: provided ?? {} }).env, ...spec.env };
  const live = new LiveProgram(newId("prog"), host);
  const off = host.subscribe((event) => {
    if (event.type !== "log" || event.executionId !== live.executionId) return;
    const err = event.entry.level === "error" || event.entry.level === "warn";
    live.output.append(event.entry.message + "\n", err ? "stderr" : "stdout");
  });
  const request = {
    code: program.code,
    language: program.language,
    workspace,
    typecheck: "off" as const,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    ...(options.traceparent ? { traceparent: options.traceparent } : {}),
    ...(spec.timeoutMs ? { timeoutMs: spec.timeoutMs } : {}),
    ...(spec.limits ? { limits: programLimits(spec.limits) } : {}),
    program: {
      argv0: program.argv0,
      args: program.args,
      env,
      cwd: spec.cwd ?? "",
      ...(program.stdin !== undefined ? { stdin: program.stdin } : {}),
      interactive,
    },
  };
  host.execute(request, { onStart: (id) => live.bind(id) })
    .then((result) => {
      const ws = (result as { workspace?: { id: string; persisted: boolean } }).workspace;
      live.exit({ ...programEnd(result), ...(ws?.persisted ? { workspaceId: ws.id } : {}) });
    })
    .catch((err) => {
      const e = err instanceof CordonError ? err : new CordonError("internal", String(err));
      live.exit({ exitCode: -1, timedOut: false, note: `${e.code}: ${e.message}` });
    })
    .finally(() => {
      off();
      live.settled();
    });
  return live;
}

/** Runs a program to its end (the document's `RunProgram`). */
export async function runProgram(
  host: ProgramHost,
  workspace: WorkspaceRequest,
  spec: RunProgramSpec,
  options: ProgramOptions = {},
): Promise<RunResult> {
  const live = await startProgram(host, workspace, spec, options, false);
  return await live.done;
}
