/**
 * `execute()` with a type check: beside the run (`warn`), before it
 * (`strict`), or not at all (`off`). The check runs on the checker's
 * thread, so in `warn` mode it overlaps the run instead of preceding it,
 * and a run that completed does not wait for it: its findings come after
 * the result, stored with the execution and sent as an event.
 *
 * @module
 */
import { CordonError, errorInfo } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { isTypeScript } from "../../sandbox/languages.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import { type Checker, TYPECHECK_MODES, type TypecheckMode } from "../typecheck/checker.ts";
import type { Engine } from "../execution/engine.ts";
import { early } from "../execution/envelope.ts";
import { traceIdFor } from "../execution/trace.ts";
import {
  type CheckResult,
  formOf,
  type SessionDeclaration,
  type TypeDiagnostic,
} from "../typecheck/check.ts";
import { topLevelNames } from "../typecheck/session_types.ts";
import type {
  Diagnostic,
  ExecuteHooks,
  ExecuteRequest,
  ExecuteResult,
} from "../execution/types.ts";

/** A TypeScript diagnostic as results report it. */
export function toDiagnostic(d: TypeDiagnostic): Diagnostic {
  return {
    code: `TS${d.code}`,
    message: d.message,
    severity: d.category,
    line: d.line,
    column: d.column,
  };
}

function modeOf(request: ExecuteRequest, fallback: TypecheckMode): TypecheckMode {
  const mode = request?.typecheck ?? fallback;
  if (!TYPECHECK_MODES.includes(mode)) {
    throw new CordonError(
      "invalid_request",
      `Unknown typecheck mode "${mode}"; use one of ${TYPECHECK_MODES.join(", ")}`,
    );
  }
  return mode;
}

/** Keeps what a run in a session declared, for the type check of the session's next run. */
function remember(
  checker: Checker,
  result: ExecuteResult,
  declared: () => SessionDeclaration[],
): void {
  const sessionId = result.meta.sessionId;
  if (sessionId !== undefined && result.meta.form === "script") {
    checker.sessions.add(sessionId, declared());
  }
}

/** How long a `warn` run goes on before its check starts beside it (else it starts at the end). */
export const WARN_CHECK_AFTER_MS = 20;

/** What a check found, as results report it (TypeScript's syntax errors only when Sucrase's are absent). */
function findings(result: ExecuteResult, checked: CheckResult): Diagnostic[] {
  // Sucrase already reported a syntax error; TypeScript's own view of it would repeat it.
  const syntaxReported = result.diagnostics.some((d) => d.code === "syntax_error");
  const found = syntaxReported
    ? checked.diagnostics
    : [...checked.syntaxErrors, ...checked.diagnostics];
  return found.map(toDiagnostic);
}

/**
 * The end of a `warn` check whose run completed first: the session learns what the run
 * declared, the findings are stored with the execution (`execution(id)` shows them), and
 * listeners get a `diagnostics` event. A store lost meanwhile loses only this advice.
 */
async function finishLate(
  engine: Engine,
  checker: Checker,
  result: ExecuteResult,
  code: string,
  checking: Promise<CheckResult | undefined>,
): Promise<void> {
  const checked = await checking;
  remember(checker, result, () => checked?.declared ?? topLevelNames(code));
  const diagnostics = checked ? findings(result, checked) : [];
  if (checked) {
    try {
      await engine.parts.executions.recordTypecheck(
        result.executionId,
        checked.ms,
        diagnostics as unknown as Record<string, unknown>[],
      );
    } catch {
      // Advice, not the run's outcome: the result is already with its caller.
    }
  }
  engine.parts.events.checked(result.executionId, diagnostics, true);
}

/**
 * Runs `request`, checking its code as the request (or the runtime) asks.
 *
 * - `off`: no check; `meta.typecheck` is absent.
 * - `strict`: the check comes first; code with a type error does not run (`type_error`).
 *   Otherwise its findings are in the result with `meta.typecheck: "done"`.
 * - `warn` (the default): the check runs on the checker's thread, starting once the run has
 *   gone on {@link WARN_CHECK_AFTER_MS} (or when it ends, for a shorter run). When the run
 *   ends and the check is done, its findings are in the result (`meta.typecheck: "done"`). When
 *   the run *completed* first, the result returns at once with `meta.typecheck: "pending"`: the
 *   findings are stored with the execution once the check ends (`execution(id)` then shows
 *   `diagnostics` and `meta.typecheck: "done"`), and a `diagnostics` event is emitted. A run
 *   that failed, was rejected or paused waits for the check, so its result carries them.
 *
 * In a session, the next check waits for a pending check of the same session, so it sees what
 * the earlier run declared. `runtime.close()` waits for pending checks ({@link Checker.drain}).
 */
export async function executeChecked(
  engine: Engine,
  checker: Checker,
  catalogue: Catalogue,
  request: ExecuteRequest,
  fallback: TypecheckMode,
  hooks?: ExecuteHooks,
): Promise<ExecuteResult> {
  const startedAt = performance.now();
  let mode: TypecheckMode;
  try {
    mode = modeOf(request, fallback);
  } catch (err) {
    return early(newId("exec"), startedAt, (err as CordonError).toInfo(), engine.parts);
  }
  const code = request?.code;
  if (typeof code !== "string" || code.trim() === "") return await engine.execute(request, hooks);
  // TypeScript's checks do not apply to other languages: they run unchecked, with no diagnostics
  // (`meta.language` says which; an unknown language is refused by admission).
  if (!isTypeScript(request.language)) return await engine.execute(request, hooks);
  if (mode === "off") {
    const result = await engine.execute(request, hooks);
    // Unchecked, its names are still left in the session: the next check knows them as `any`
    // (after what a pending check of the session's earlier run remembers).
    const learn = () => remember(checker, result, () => topLevelNames(code));
    const sid = result.meta.sessionId;
    const earlier = sid === undefined ? undefined : checker.sessionReady(sid);
    if (earlier) checker.later(earlier.then(learn), sid);
    else learn();
    return result;
  }
  const sessionId = typeof request.sessionId === "string" ? request.sessionId : undefined;
  const check = () => {
    const sessionDeclarations = sessionId === undefined
      ? undefined
      : checker.sessions.text(sessionId);
    return checker.check({
      code,
      form: formOf(code),
      declarations: catalogue.declarations,
      declarationHash: catalogue.declarationHash,
      ...(sessionDeclarations ? { sessionDeclarations } : {}),
    });
  };
  // An earlier run of the session may still be checked: what it declared comes first.
  const before = sessionId === undefined ? undefined : checker.sessionReady(sessionId);
  let settled = false;
  let started: Promise<CheckResult | undefined> | undefined;
  const startCheck = () => {
    if (started) return started;
    started = (before ? before.then(check) : check()).catch(() => undefined);
    started.then(() => (settled = true));
    return started;
  };
  if (mode === "strict") {
    const checked = await startCheck();
    const errors = checked ? [...checked.syntaxErrors, ...checked.diagnostics] : [];
    if (errors.some((d) => d.category === "error")) {
      const first = errors.find((d) => d.category === "error")!;
      const id = newId("exec");
      const blocked = early(
        id,
        startedAt,
        errorInfo(
          "type_error",
          `The code does not type-check (line ${first.line}, column ${first.column}: ${first.message}); it did not run`,
          { count: errors.length },
          { line: first.line, column: first.column },
        ),
        engine.parts,
        "error",
        // Refused before it ran, it still joins the caller's trace.
        traceIdFor(request.traceparent, id),
      );
      blocked.diagnostics = errors.map(toDiagnostic);
      blocked.meta.typecheckMs = checked!.ms;
      blocked.meta.typecheck = "done";
      return blocked;
    }
  }
  // `warn` starts its check once the run has gone on a while, or when it ends: a short run
  // does not share the CPU with TypeScript (measured: +46 % on a trivial run when both ran at
  // once on 2 cores), and its findings come after its result.
  const later = mode === "warn" ? setTimeout(startCheck, WARN_CHECK_AFTER_MS) : undefined;
  const events = engine.parts.events;
  let executionId: string | undefined;
  const watched: ExecuteHooks = mode === "warn"
    ? {
      ...hooks,
      onStart(id) {
        executionId = id;
        events.checking(id, () => !settled);
        hooks?.onStart?.(id);
      },
    }
    : hooks ?? {};
  let result: ExecuteResult;
  try {
    result = await engine.execute(request, watched);
  } catch (err) {
    clearTimeout(later);
    if (executionId !== undefined) events.checked(executionId, [], false);
    throw err;
  }
  clearTimeout(later);
  const checking = startCheck();
  if (mode === "warn" && result.status === "completed" && !settled) {
    result.meta.typecheck = "pending";
    checker.later(finishLate(engine, checker, result, code, checking), result.meta.sessionId);
    return result;
  }
  const checked = await checking;
  remember(checker, result, () => checked?.declared ?? topLevelNames(code));
  const found = checked ? findings(result, checked) : [];
  if (executionId !== undefined) events.checked(executionId, found, false);
  if (!checked) return result;
  result.meta.typecheckMs = checked.ms;
  result.meta.typecheck = "done";
  result.diagnostics.push(...found);
  return result;
}
