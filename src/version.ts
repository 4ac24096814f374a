/**
 * Cordon's version (kept equal to `deno.json`'s by a test).
 *
 * @module
 */

/** The version of this copy of Cordon. */
export const VERSION = "0.1.0";
