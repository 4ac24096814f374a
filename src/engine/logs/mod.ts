/**
 * Console output: one execution's lines captured within bounds, redaction
 * of secrets and credential shapes before anything is kept, and the
 * runtime's log settings (redactor, retention, pruning).
 *
 * @module
 */
export { LogBuffer, type LogEntry } from "./buffer.ts";
export {
  createRedactor,
  MIN_SECRET_VALUE_LENGTH,
  type Redact,
  redactCredentials,
  type RedactorOptions,
  redactValue,
} from "./redact.ts";
export {
  DEFAULT_LOG_RETAIN_MS,
  type LogOptions,
  logRetainMs,
  pruneLogs,
  type RedactOptions,
  runtimeRedactor,
} from "./settings.ts";
