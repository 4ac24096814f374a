/**
 * `execute()` with a type check: beside the run (`warn`), before it
 * (`strict`), or not at all (`off`). The check runs on the checker's
 * thread, so in `warn` mode it overlaps the run instead of preceding it.
 *
 * @module
 */
import { CordonError, errorInfo } from "../../errors.ts";
import { newId } from "../../ids.ts";
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

/** Runs `request`, checking its code as the request (or the runtime) asks. */
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
  if (mode === "off") {
    const result = await engine.execute(request, hooks);
    // Unchecked, its names are still left in the session: the next check knows them as `any`.
    remember(checker, result, () => topLevelNames(code));
    return result;
  }
  const sessionId = typeof request.sessionId === "string" ? request.sessionId : undefined;
  const sessionDeclarations = sessionId === undefined
    ? undefined
    : checker.sessions.text(sessionId);
  const checking: Promise<CheckResult | undefined> = checker.check({
    code,
    form: formOf(code),
    declarations: catalogue.declarations,
    declarationHash: catalogue.declarationHash,
    ...(sessionDeclarations ? { sessionDeclarations } : {}),
  }).catch(() => undefined);
  if (mode === "strict") {
    const checked = await checking;
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
      return blocked;
    }
  }
  const result = await engine.execute(request, hooks);
  const checked = await checking;
  remember(checker, result, () => checked?.declared ?? topLevelNames(code));
  if (!checked) return result;
  result.meta.typecheckMs = checked.ms;
  // Sucrase already reported a syntax error; TypeScript's own view of it would repeat it.
  const syntaxReported = result.diagnostics.some((d) => d.code === "syntax_error");
  const found = syntaxReported
    ? checked.diagnostics
    : [...checked.syntaxErrors, ...checked.diagnostics];
  result.diagnostics.push(...found.map(toDiagnostic));
  return result;
}
