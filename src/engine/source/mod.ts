/**
 * Reading a script: its form (body, function or module), transpiled to
 * what the child runs, with the line offset its errors are reported by.
 *
 * @module
 */
export { type CodeForm, MAX_CODE_CHARS, type PreparedSource, prepareSource } from "./source.ts";
