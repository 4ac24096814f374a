/**
 * The document's `ExecuteInline`: code blocks written as files under the
 * workspace's `src/` (`code_0.py`, `code_1.sh`, … as `buildBlockSpec` names
 * them) and run there one after another as programs, in one workspace, until
 * one fails. The result is one `RunResult`: the blocks' output in order, the
 * last block's exit status.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { INLINE_SOURCE_DIR } from "../workspaces/layout.ts";
import type { WorkspaceRequest } from "../workspaces/types.ts";
import type { ProgramOptions } from "./runner.ts";
import type { RunProgramSpec, RunResult } from "./types.ts";

/** A code block: its language and code. */
export interface InlineBlock {
  /** The block's language (`python`, `bash`, `ts`, …). */
  language: string;
  /** Its code. */
  code: string;
}

/** Where a block's language says it goes and how it runs (`buildBlockSpec`'s table). */
export type BlockSpecOf = (
  idx: number,
  block: InlineBlock,
) => { file: string; cmd: string; args: string[] };

/** What {@link executeInline} runs the blocks with. */
export interface InlineHost {
  runProgram(
    ws: WorkspaceRequest,
    spec: RunProgramSpec,
    options?: ProgramOptions,
  ): Promise<RunResult>;
  /** Removes a workspace this call kept only for its blocks. */
  removeWorkspace(id: string): Promise<void>;
}

/** The most blocks one call runs. */
export const MAX_INLINE_BLOCKS = 50;

/**
 * Writes `blocks` under `src/` of one workspace and runs them in order (`timeoutMs` each),
 * stopping at the first that does not exit 0. The workspace is kept only when the request asks
 * (`persist` or an `{ id }`). Throws `unsupported_language` before anything runs for a block
 * no interpreter of Cordon runs.
 */
export async function executeInline(
  host: InlineHost,
  specOf: BlockSpecOf,
  workspace: WorkspaceRequest,
  blocks: readonly InlineBlock[],
  options: ProgramOptions & { timeoutMs?: number } = {},
): Promise<RunResult> {
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > MAX_INLINE_BLOCKS) {
    throw new CordonError(
      "invalid_request",
      `executeInline takes 1 to ${MAX_INLINE_BLOCKS} code blocks`,
    );
  }
  const specs = blocks.map((b, i) => ({ ...specOf(i, b), code: String(b?.code ?? "") }));
  const files = Object.fromEntries(specs.map((s) => [`${INLINE_SOURCE_DIR}/${s.file}`, s.code]));
  const keep = workspace.persist === true || workspace.id !== undefined;
  const { timeoutMs, ...runOptions } = options;
  const { outputs, ...staging } = workspace;
  let ws: WorkspaceRequest = {
    ...staging,
    files: { ...workspace.files, ...files },
    persist: true,
  };
  const out = { stdout: "", stderr: "", durationMs: 0, timedOut: false };
  let last: RunResult | undefined;
  try {
    for (const [i, s] of specs.entries()) {
      // Outputs are collected once, after the last block (each collection saves new versions).
      const at = i === specs.length - 1 && outputs ? { ...ws, outputs } : ws;
      last = await host.runProgram(at, {
        cmd: s.cmd,
        args: [...s.args, s.file],
        cwd: INLINE_SOURCE_DIR,
        ...(timeoutMs ? { timeoutMs } : {}),
      }, runOptions);
      out.stdout += last.stdout;
      out.stderr += last.stderr;
      out.durationMs += last.durationMs;
      out.timedOut ||= last.timedOut;
      if (last.exitCode !== 0) break;
      // The next block runs in the same workspace (its files, what this block wrote).
      if (last.workspaceId) ws = { id: last.workspaceId };
    }
  } finally {
    if (!keep && last?.workspaceId) await host.removeWorkspace(last.workspaceId).catch(() => {});
  }
  return {
    ...out,
    exitCode: last!.exitCode,
    executionId: last!.executionId,
    ...(keep && last!.workspaceId ? { workspaceId: last!.workspaceId } : {}),
  };
}
