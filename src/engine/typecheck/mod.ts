/**
 * The type check: a script checked against the tools' declarations on a
 * worker thread, with diagnostics in the user's lines.
 *
 * @module
 */
export { Checker, TYPECHECK_MODES, type TypecheckMode } from "./checker.ts";
