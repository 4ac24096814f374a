/**
 * Integrations: Cordon offered to the agent frameworks people use, built on
 * the `Runtime` interface. `codeTool()` is Cordon as one Vercel AI SDK
 * tool, with paused runs decided by the app's `onPause` or picked up later by
 * their execution id.
 *
 * @module
 */
export {
  codeTool,
  type CodeToolInput,
  type CodeToolOptions,
  DEFAULT_WAIT_MS,
  MAX_WAIT_MS,
} from "./ai_sdk.ts";
export {
  type CodeToolDecision,
  type CodeToolPause,
  DEFAULT_MAX_ROUNDS,
  type OnPause,
} from "./ai_sdk_drive.ts";
export {
  type CodeToolOutput,
  type CodeToolPendingCall,
  DEFAULT_CONSOLE_LINES,
  DEFAULT_RESULT_CHARS,
} from "./ai_sdk_output.ts";
