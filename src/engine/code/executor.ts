/**
 * The code-executor interface agent frameworks expect (AutoGen's
 * `CodeExecutor`, Google ADK's `BaseCodeExecutor`): pull the code blocks out
 * of a model's answer, run them in order, and hand back one text `output`
 * and an exit code.
 *
 * TypeScript/JavaScript blocks run in one session (a later block sees an
 * earlier one's declarations); Python blocks (Pyodide) and bash blocks
 * (just-bash) run in the same locked-down child, each on its own, as the
 * document's executors run each block as its own process. `tsx`/`jsx` are
 * refused: the sandbox transpiles TypeScript without a JSX runtime, so JSX
 * could only fail later and less clearly.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { WorkspaceReport, WorkspaceRequest } from "../workspaces/workspace.ts";
import type { ExecuteRequest, ExecuteResult } from "../execution/types.ts";
import type { CodeBlock } from "./code_blocks.ts";

export { type CodeBlock, extractCodeBlocks, type ExtractCodeBlocksOptions } from "./code_blocks.ts";

/** What {@link executeCode} takes. */
export interface ExecuteCodeRequest {
  /** The blocks to run, in order (from {@link extractCodeBlocks}, or built by the caller). */
  codeBlocks: CodeBlock[];
  /**
   * The caller's key for stateful execution, as in ADK's `CodeExecutionInput.executionId`:
   * blocks sent under the same id share a session, so state carries from one call to the next
   * while the session lives (node-local; an expired one is replaced by a fresh one). Without
   * it, the blocks of one call share a session that is closed when the call returns.
   */
  executionId?: string;
  /** The tenant the blocks run in (default `default`); keyed sessions are kept per namespace. */
  namespace?: string;
  /** The time limit of each block (ms); the runtime's default when absent. */
  timeoutMs?: number;
  /**
   * A workspace for the blocks' session (given when the session starts): files in, and the
   * outputs its globs collect after each block come back as `outputFiles`.
   */
  workspace?: WorkspaceRequest;
}

/** What {@link executeCode} returns. */
export interface ExecuteCodeResult {
  /** Each block's console lines, then its returned value as JSON, or its failure's code and message. */
  output: string;
  /**
   * Files the blocks wrote that `workspace.outputs` collects, after the last block (empty when
   * a block failed first, or without a workspace).
   */
  outputFiles: { path: string; ref?: string }[];
  /** 0 when every block completed, 1 when one failed or paused (the later ones did not run). */
  exitCode: 0 | 1;
  /** The Cordon execution of each block that ran, in order: read them back with `execution()`. */
  executionIds: string[];
}

/** The languages {@link executeCode} runs, as written after a fence. */
export const SUPPORTED_LANGUAGES: readonly string[] = [
  "ts",
  "typescript",
  "js",
  "javascript",
  "python",
  "py",
  "python3",
  "bash",
  "sh",
];

/** The language `execute()` runs a block in, by the name its fence gave. */
function blockLanguage(language: string): "typescript" | "python" | "bash" {
  const l = language.toLowerCase();
  if (l === "python" || l === "py" || l === "python3") return "python";
  if (l === "bash" || l === "sh") return "bash";
  return "typescript";
}

/** The part of a runtime {@link executeCode} needs. */
export interface CodeRunner {
  /** Runs one execution. */
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
  /** Closes a session the blocks ran in. */
  closeSession(sessionId: string): Promise<boolean>;
}

function checkRequest(request: ExecuteCodeRequest): CodeBlock[] {
  const blocks = request?.codeBlocks;
  if (!Array.isArray(blocks) || blocks.length === 0) {
    throw new CordonError("invalid_request", "executeCode() needs at least one code block");
  }
  const id = request.executionId;
  if (id !== undefined && (typeof id !== "string" || id === "" || id.length > 200)) {
    throw new CordonError("invalid_request", "executionId must be a string of 1 to 200 characters");
  }
  blocks.forEach((block, index) => {
    if (typeof block?.code !== "string") {
      throw new CordonError("invalid_request", `Code block ${index + 1} has no code`);
    }
    const language = String(block.language ?? "").trim().toLowerCase();
    if (SUPPORTED_LANGUAGES.includes(language)) return;
    const named = language === "" ? "names no language" : `is ${language}`;
    throw new CordonError(
      "unsupported_language",
      `Code block ${index + 1} ${named}; Cordon runs only ${
        SUPPORTED_LANGUAGES.join(", ")
      } (write it in TypeScript, in a \`\`\`ts block)`,
      { details: { index, language, supported: [...SUPPORTED_LANGUAGES] } },
    );
  });
  return blocks;
}

/** Bigints, maps and sets as JSON can show them. */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_, v) => {
    if (typeof v === "bigint") return `${v}n`;
    if (v instanceof Map) return Object.fromEntries(v);
    if (v instanceof Set) return [...v];
    return v;
  });
}

/** One block's part of the output. */
function blockOutput(result: ExecuteResult): string[] {
  const lines = result.logs.map((entry) => entry.message);
  // A Python block whose last statement is not an expression (a print) has no value to show.
  const none = result.meta.language === "python" &&
    (result as { result?: unknown }).result === null;
  if (result.meta.logsTruncated) {
    lines.push(`(console output cut short; readLogs of ${result.executionId} has every kept line)`);
  }
  if (result.status === "completed") {
    if (result.result !== undefined && !none) lines.push(toJson(result.result));
  } else if (result.status === "paused") {
    const calls = result.pending.map((p) => `${p.connector}.${p.tool} (seq ${p.seq})`).join(", ");
    lines.push(`paused: execution ${result.executionId} waits for a decision on ${calls}`);
  } else {
    const at = result.error.location
      ? ` (line ${result.error.location.line}, column ${result.error.location.column})`
      : "";
    lines.push(`${result.error.code}: ${result.error.message}${at}`);
  }
  return lines;
}

/**
 * Runs code blocks (TypeScript/JavaScript, Python, bash) in order, each as its own execution, and stops at the
 * first that does not complete. Throws `unsupported_language` (before anything runs) when a
 * block is in another language.
 *
 * @example
 * ```ts
 * import { createRuntime } from "../../../mod.ts";
 * import { executeCode } from "./executor.ts";
 * await using runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
 * const out = await executeCode(runtime, {
 *   codeBlocks: [{ language: "ts", code: "console.log('hi'); return 1 + 1;" }],
 * });
 * console.assert(out.output === "hi\n2" && out.exitCode === 0);
 * ```
 */
export async function executeCode(
  runtime: CodeRunner,
  request: ExecuteCodeRequest,
): Promise<ExecuteCodeResult> {
  const blocks = checkRequest(request);
  const output: string[] = [];
  const executionIds: string[] = [];
  // Blocks share a session: a later block sees an earlier one's top-level declarations. Under
  // an executionId the session also outlives this call (while it lives on this node).
  let known = keyed.get(runtime);
  if (!known) keyed.set(runtime, known = new Map());
  const key = `${request.namespace ?? "default"}\u0000${request.executionId}`;
  let sessionId = request.executionId === undefined ? undefined : known.get(key);
  const files = new Map<string, { path: string; ref?: string }>();
  try {
    const ws = request.workspace;
    const collect = ws?.outputs ? { outputs: ws.outputs } : undefined;
    // Outputs are collected once, after the last block (each collection would save new
    // artifact versions of files an earlier block wrote).
    const staged = ws ? { ...ws, outputs: undefined } : undefined;
    const fresh = (code: string, last: boolean) =>
      runtime.execute({
        code,
        timeoutMs: request.timeoutMs,
        ...(request.namespace ? { namespace: request.namespace } : {}),
        session: true,
        ...(ws ? { workspace: last ? ws : staged } : {}),
      });
    for (const [i, block] of blocks.entries()) {
      const last = i === blocks.length - 1;
      const language = blockLanguage(String(block.language).trim());
      let result = language !== "typescript"
        // Python and bash blocks run on their own (no session), in the caller's workspace.
        ? await runtime.execute({
          code: block.code,
          language,
          timeoutMs: request.timeoutMs,
          ...(request.namespace ? { namespace: request.namespace } : {}),
          ...(ws ? { workspace: last ? ws : staged } : {}),
        })
        : sessionId
        ? await runtime.execute({
          code: block.code,
          timeoutMs: request.timeoutMs,
          ...(request.namespace ? { namespace: request.namespace } : {}),
          sessionId,
          ...(collect && last ? { workspace: collect } : {}),
        })
        : await fresh(block.code, last);
      if (result.status === "error" && result.error.code === "session_not_found") {
        // The keyed session is gone (expired, crashed): start again in a new one.
        result = await fresh(block.code, last);
      }
      for (const o of (result as { workspace?: WorkspaceReport }).workspace?.outputs ?? []) {
        files.set(o.path, o.ref ? { path: o.path, ref: o.ref } : { path: o.path });
      }
      sessionId = result.meta.sessionId ?? sessionId;
      executionIds.push(result.executionId);
      output.push(...blockOutput(result));
      if (result.status !== "completed") {
        return {
          output: output.join("\n"),
          outputFiles: [...files.values()],
          exitCode: 1,
          executionIds,
        };
      }
    }
    return {
      output: output.join("\n"),
      outputFiles: [...files.values()],
      exitCode: 0,
      executionIds,
    };
  } finally {
    if (request.executionId !== undefined && sessionId) known.set(key, sessionId);
    else if (sessionId) await runtime.closeSession(sessionId).catch(() => false);
  }
}

/** Sessions kept under callers' executionIds, per runtime. */
const keyed = new WeakMap<object, Map<string, string>>();
