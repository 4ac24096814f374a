/**
 * Programs in a workspace, as trpc-agent-go's `codeexecutor` runs them:
 * `runProgram` (one run, its stdout, stderr and exit code) and `startProgram`
 * (an interactive session to poll, write to and kill). Every program is a
 * Cordon execution in a locked-down child: Python, bash or TypeScript, never
 * a process on the host.
 *
 * @module
 */
export {
  type InteractiveProgramSpec,
  PROGRAM_STATUS_EXITED,
  PROGRAM_STATUS_RUNNING,
  type ProgramLog,
  type ProgramPoll,
  type ProgramSession,
  type ProgramState,
  type RunEnvProvider,
} from "./types.ts";
export type { RunResult as ProgramRunResult } from "./types.ts";
export type { ProgramInfo } from "./registry.ts";
export type { ProgramOptions } from "./runner.ts";
export type { InlineBlock } from "./inline.ts";
export type { ProgramRunParams } from "../../sandbox/protocol.ts";
export {
  languageOfFile,
  languageOfShebang,
  type ProgramLanguage,
  resolveCommand,
} from "./command.ts";
export { checkProgramSpec, PROGRAM_LIMITS } from "./spec.ts";
export { MAX_SESSION_LINES, ProgramOutput } from "./output.ts";
