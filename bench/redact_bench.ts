/**
 * `deno bench bench/redact_bench.ts`: console-line redaction (src/engine/redact.ts) on a
 * typical line, on a 1 MB line of prose with secrets in it, and on 1 MB inputs built to make a
 * backtracking pattern slow. The goal is well under 50 ms for any 1 MB line.
 *
 * @module
 */
import { createRedactor } from "../src/engine/logs/redact.ts";

const redact = createRedactor({ values: ["host-held-secret-value", "Bearer abcdef123456"] });

const TYPICAL = "fetched 20 rows for ana@example.com in 35 ms (token=abc123, page 2)";
const MIXED = "user ana@example.com token=abc123 Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.sig " +
  "ghp_abcdefghijklmnopqrstuvwxyz0123 and some ordinary words around it. ";
const ONE_MB = 1_000_000;

Deno.bench("redact: a typical line", () => {
  redact(TYPICAL);
});
Deno.bench("redact: 1 MB of prose with secrets", () => {
  redact(MIXED.repeat(Math.ceil(ONE_MB / MIXED.length)));
});
Deno.bench("redact: 1 MB of one word", () => {
  redact("a".repeat(ONE_MB));
});
Deno.bench("redact: 1 MB of JWT-like starts", () => {
  redact("eyJ-".repeat(ONE_MB / 4));
});
Deno.bench("redact: 1 MB of an e-mail domain", () => {
  redact("x@" + "a.".repeat(ONE_MB / 2 - 1));
});
