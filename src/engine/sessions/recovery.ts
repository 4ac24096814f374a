/**
 * A session's recovery history as callers and scripts read it: the Code Mode
 * API's `CodeModeRecoveryEntry` (ISO `timestamp`, `outcome`, `diagnostics`
 * with a severity, `recoveryClassification`, `logsStored`, `summary`), with
 * Cordon's extras (`seq`, `executionId`, `declared`, `toolCalls`,
 * `codeTruncated`), built from the stored journal.
 *
 * @module
 */
import type { JournalEntry, RecoveryClass } from "../../store/sessions.ts";

/** How safe an execution is to run again when rebuilding a session (see `classify`). */
export type CodeModeRecoveryClassification = RecoveryClass;

/** A problem found in an execution's code, as the recovery history keeps it. */
export interface RecoveryDiagnostic {
  /** `syntax_error`, `script_error`, a TypeScript code, … */
  code: string;
  /** How bad it is. */
  severity: "error" | "warning" | "info";
  /** What was wrong (redacted, bounded). */
  message: string;
  /** Line in the code, from 1, when known. */
  line?: number;
}

/** One execution of a session, as the Code Mode API's `CodeModeRecoveryEntry`. */
export interface CodeModeRecoveryEntry {
  /** When it ended, ISO 8601. */
  timestamp: string;
  /** Its code, redacted and bounded (see `codeTruncated`). */
  code: string;
  /** The tool declarations it ran against. */
  declarationHash: string;
  /** How it ended; a failure's message is redacted. */
  outcome: { ok: true } | { ok: false; code: string; message: string };
  /** Problems found in the code. */
  diagnostics: RecoveryDiagnostic[];
  /** `setup_like` (safe to run again), `side_effecting`, or `unknown`. */
  recoveryClassification: CodeModeRecoveryClassification;
  /** Its console lines are stored (read them by the execution's `logRef`). */
  logsStored?: boolean;
  /** One line on what it did: the names it declared, its tool calls, how it ended. */
  summary?: string;
}

/** A recovery entry with where it sits in the session and what it declared. */
export interface RecoveryEntry extends CodeModeRecoveryEntry {
  /** Its place in the session, from 1 (what `cursor` counts). */
  seq: number;
  /** The execution it records. */
  executionId: string;
  /** The code was longer than the journal keeps and was cut. */
  codeTruncated: boolean;
  /** Top-level names it declared (carried to later executions of the session). */
  declared: string[];
  /** Tool calls it made. */
  toolCalls: number;
}

/** The most names a summary lists before it says how many more there are. */
const SUMMARY_NAMES = 8;
/** The most characters of a failure's message a summary quotes. */
const SUMMARY_MESSAGE_CHARS = 160;

/** The one-line summary of a journaled execution. */
function summarize(e: JournalEntry): string {
  const names = e.declared.slice(0, SUMMARY_NAMES).join(", ") +
    (e.declared.length > SUMMARY_NAMES ? ` and ${e.declared.length - SUMMARY_NAMES} more` : "");
  const declared = e.declared.length ? `declares ${names}` : "declares nothing";
  const calls = `${e.toolCalls} tool call${e.toolCalls === 1 ? "" : "s"}`;
  const ended = e.error
    ? `failed with ${e.error.code}: ${e.error.message.slice(0, SUMMARY_MESSAGE_CHARS)}`
    : e.status;
  return `${declared}; ${calls}; ${ended}`;
}

/** A stored journal entry as the recovery history shows it. */
export function toRecoveryEntry(e: JournalEntry): RecoveryEntry {
  const entry: RecoveryEntry = {
    timestamp: new Date(e.createdAt).toISOString(),
    code: e.code,
    declarationHash: e.declarationHash,
    outcome: e.status === "completed"
      ? { ok: true }
      : { ok: false, code: e.error?.code ?? e.status, message: e.error?.message ?? e.status },
    diagnostics: e.diagnostics.map((d) => ({
      code: d.code,
      severity: d.severity === "warning" || d.severity === "info" ? d.severity : "error",
      message: d.message,
      ...(d.line !== undefined ? { line: d.line } : {}),
    })),
    recoveryClassification: e.classification,
    summary: summarize(e),
    seq: e.seq,
    executionId: e.executionId,
    codeTruncated: e.codeTruncated,
    declared: e.declared,
    toolCalls: e.toolCalls,
  };
  if (e.logsStored !== undefined) entry.logsStored = e.logsStored;
  return entry;
}
