/**
 * Programs in a workspace, as trpc-agent-go's `codeexecutor` runs them:
 * `runProgram` (one run, its stdout, stderr and exit code) and `startProgram`
 * (an interactive session to poll, write to and kill). Every program is a
 * Cordon execution in a locked-down child: Python, bash or TypeScript, never
 * a process on the host.
 *
 * @module
 */
export * from "./types.ts";
export {
  languageOfFile,
  languageOfShebang,
  type ProgramLanguage,
  resolveCommand,
} from "./command.ts";
export { checkProgramSpec, PROGRAM_LIMITS } from "./spec.ts";
export { MAX_SESSION_LINES, ProgramOutput } from "./output.ts";
