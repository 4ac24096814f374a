/**
 * The MCP front's executor tools (seed 002): `execute_code` runs a model's
 * code blocks (ts/js, python, bash), `run_program` runs a program of a
 * workspace to its end, and `start_program` with `program_poll`,
 * `program_write`, `program_kill` and `program_close` drive an interactive
 * one. Every program is a Cordon execution in a locked-down child.
 *
 * @module
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ExecuteRequest, ExecuteResult, ExecutionMeta, Runtime } from "../../engine/mod.ts";
import { errorInfo } from "../../errors.ts";
import { extractCodeBlocks } from "../../engine/code/code_blocks.ts";
import { executeCode } from "../../engine/code/executor.ts";
import { type DriveOptions, driveRun } from "./drive.ts";
import type { Outcome } from "./outcome.ts";
import { RunProgress } from "./progress.ts";
import { errorToolResult } from "./render.ts";

const PROGRAM = z.object({
  cmd: z.string().min(1).max(4_096).describe("python3, bash, deno run … or a workspace script"),
  args: z.array(z.string().max(256 * 1024)).max(1_024).optional(),
  env: z.record(z.string().max(128), z.string().max(64 * 1024)).optional(),
  cwd: z.string().max(1_000).optional().describe("Working directory, relative to the workspace"),
  stdin: z.string().max(4 * 1024 * 1024).optional(),
  timeoutMs: z.number().int().positive().optional(),
  files: z.record(z.string().max(1_000), z.string().max(4 * 1024 * 1024)).optional()
    .describe("Files written into a new workspace first: path → text"),
  workspaceId: z.string().max(100).optional().describe("Run in a kept workspace instead"),
});
type ProgramArgs = z.infer<typeof PROGRAM>;
const id = z.string().min(1).max(200).describe("The program session's id");
const CODE = z.object({
  text: z.string().max(1_000_000).optional().describe("Markdown with fenced code blocks"),
  codeBlocks: z.array(z.object({ language: z.string().max(32), code: z.string() })).max(50)
    .optional(),
  timeoutMs: z.number().int().positive().optional(),
});
const POLL = z.object({ id, limit: z.number().int().min(1).max(20_000).optional() });
const WRITE = z.object({ id, data: z.string().max(1024 * 1024), newline: z.boolean().optional() });
const KILL = z.object({ id, graceMs: z.number().int().min(0).max(60_000).optional() });
const CLOSE = z.object({ id });

/** A JSON answer as text and structured content. */
function json(value: unknown): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** Runs `work`, answering its value or its error as a tool result. */
async function answer(work: () => unknown | Promise<unknown>): Promise<CallToolResult> {
  try {
    return json(await work());
  } catch (err) {
    return errorToolResult(err);
  }
}

type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A block's outcome read back (its run was carried on by a decision made elsewhere) as the
 * result `executeCode()` reports on; a run still under way or rolled back stops the blocks.
 */
function asBlockResult(o: Outcome): ExecuteResult {
  const meta = { logsTruncated: false } as ExecutionMeta;
  const base = { executionId: o.executionId, logs: o.logs, calls: o.calls, meta };
  if (o.status === "completed") {
    return { ...base, status: "completed", result: o.result, diagnostics: o.diagnostics };
  }
  if (o.status === "paused") {
    return { ...base, status: "paused", pending: o.pending ?? [], diagnostics: o.diagnostics };
  }
  const error = o.error ?? errorInfo("invalid_state", `Execution ${o.executionId} is ${o.status}`);
  return {
    ...base,
    status: o.status === "rejected" ? "rejected" : "error",
    error,
    diagnostics: o.diagnostics,
  };
}

/**
 * Runs code blocks as `execute_code` does, each block's run carried through its pauses in the
 * client (see `driveRun()`); a block left paused stops the blocks, and the answer's `next` says
 * how to go on.
 */
async function runBlocks(
  runtime: Runtime,
  request: z.infer<typeof CODE> & { namespace?: string },
  drive: DriveOptions,
  progress: RunProgress | undefined,
) {
  let paused: string | undefined;
  const runner = {
    execute: async (r: ExecuteRequest) => {
      const { out } = await driveRun(
        () => runtime.execute(r, { onStart: (id) => progress?.follow(id) }),
        drive,
      );
      if (out.status === "paused") paused = out.executionId;
      return "meta" in out ? out : asBlockResult(out);
    },
    closeSession: (id: string) => runtime.closeSession(id),
  };
  const { text, codeBlocks, timeoutMs, namespace } = request;
  const result = await executeCode(runner, {
    codeBlocks: codeBlocks ?? extractCodeBlocks(text ?? ""),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(namespace === undefined ? {} : { namespace }),
  });
  if (paused === undefined || result.exitCode === 0) return result;
  return {
    ...result,
    next: `Execution ${paused} is paused: call the \`wait\` tool with {"executionId":"${paused}"}` +
      " once a person has decided, or `result` for where it is now.",
  };
}

/** Registers the executor tools on `server`. */
export function registerProgramTools(
  server: McpServer,
  runtime: Runtime,
  inNamespace: { namespace?: string },
  driving: (extra: ToolExtra) => DriveOptions,
): void {
  const gated = async <T>(extra: ToolExtra, work: () => Promise<T>): Promise<T> => {
    const leave = await driving(extra).admit?.();
    try {
      return await work();
    } finally {
      leave?.();
    }
  };
  const where = (a: { files?: Record<string, string>; workspaceId?: string }) =>
    a.workspaceId ? { id: a.workspaceId } : { files: a.files ?? {} };
  const session = (sid: string) => runtime.programSession(sid, inNamespace);
  const open = { openWorldHint: true, destructiveHint: true, readOnlyHint: false };

  server.registerTool(
    "execute_code",
    {
      title: "Run code blocks",
      description:
        "Run the fenced code blocks of a text (```ts, ```python, ```bash) in order, stopping at the first failure; answers { output, exitCode }.",
      inputSchema: CODE,
      annotations: open,
    },
    async (args: z.infer<typeof CODE>, extra: ToolExtra) => {
      using progress = RunProgress.of(runtime, extra);
      return await answer(() =>
        runBlocks(runtime, { ...args, ...inNamespace }, driving(extra), progress)
      );
    },
  );

  server.registerTool(
    "run_program",
    {
      title: "Run a program",
      description:
        "Run a program in a sandboxed workspace to its end (python3 file.py, bash script.sh, deno run x.ts); answers { stdout, stderr, exitCode, durationMs, timedOut }.",
      inputSchema: PROGRAM,
      annotations: open,
    },
    ({ files, workspaceId, ...spec }: ProgramArgs, extra: ToolExtra) =>
      answer(() =>
        gated(extra, () => runtime.runProgram(where({ files, workspaceId }), spec, inNamespace))
      ),
  );

  server.registerTool("start_program", {
    title: "Start an interactive program",
    description:
      "Start a program and return its session id at once; read its output with program_poll, send input with program_write, stop it with program_kill.",
    inputSchema: PROGRAM,
    annotations: open,
  }, ({ files, workspaceId, ...spec }: ProgramArgs) =>
    answer(async () => {
      const s = await runtime.startProgram(where({ files, workspaceId }), spec, inNamespace);
      return { id: s.id, executionId: s.executionId, state: s.state() };
    }));

  server.registerTool("program_poll", {
    title: "Read a program's new output",
    description: "Output since the last poll: { status, output, offset, nextOffset, exitCode? }.",
    inputSchema: POLL,
    annotations: { readOnlyHint: false, openWorldHint: false },
  }, ({ id, limit }: z.infer<typeof POLL>) => answer(() => session(id).poll(limit)));

  server.registerTool("program_write", {
    title: "Write to a program's input",
    description: "Send text to the program's standard input (newline: true adds a line end).",
    inputSchema: WRITE,
    annotations: { readOnlyHint: false, openWorldHint: false },
  }, ({ id, data, newline }: z.infer<typeof WRITE>) =>
    answer(async () => {
      await session(id).write(data, newline ?? false);
      return { written: true };
    }));

  server.registerTool("program_kill", {
    title: "Stop a program",
    description: "Stop the program; answers its final state and result.",
    inputSchema: KILL,
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  }, ({ id, graceMs }: z.infer<typeof KILL>) =>
    answer(async () => {
      const s = session(id);
      await s.kill(graceMs);
      return { state: s.state(), result: s.result() };
    }));

  server.registerTool("program_close", {
    title: "Close a program session",
    description: "Stop the program if it runs and forget its session.",
    inputSchema: CLOSE,
    annotations: { readOnlyHint: false, openWorldHint: false },
  }, ({ id }: z.infer<typeof CLOSE>) =>
    answer(async () => {
      await runtime.closeProgram(id, inNamespace);
      return { closed: true };
    }));
}
