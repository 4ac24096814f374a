/**
 * Reading a script: its form (body, function or module), transpiled to
 * what the child runs, with the line offset its errors are reported by,
 * and warnings when its form leaves its result `undefined`.
 *
 * @module
 */
export { type CodeForm, MAX_CODE_CHARS, type PreparedSource, prepareSource } from "./source.ts";
export { type FunctionSource, functionSource, startsLikeFunction } from "./form.ts";
export { type FormWarning, formWarnings } from "./warnings.ts";
