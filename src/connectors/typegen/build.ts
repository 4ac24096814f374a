/**
 * `buildDeclarations`: every connector's declarations plus the `codemode`
 * API, in one text with a hash that names it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { ConnectorInfo } from "../types.ts";
import { declareCaplets } from "./caplets.ts";
import { CODEMODE_DECLARATION } from "./codemode.ts";
import { declareConnector } from "./declarations.ts";

/** The declarations a model reads and its code is checked against. */
export interface BuiltDeclarations {
  /** `codemode` first, then each connector by name. */
  declarations: string;
  /** Hex SHA-256 of `declarations`: equal texts, equal hashes, in any process. */
  declarationHash: string;
}

/**
 * Declarations for all connectors (sorted by name, tools by name, so the
 * order they come in changes nothing) and the `codemode` API. The hash
 * changes exactly when the text does: a schema edit that changes no type
 * or JSDoc (say `$schema`) keeps it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildDeclarations } from "./build.ts";
 * const { declarations, declarationHash } = buildDeclarations([
 *   { name: "math", description: "Arithmetic", tools: [] },
 * ]);
 * assert.ok(declarations.includes("declare const math: {};"));
 * assert.ok(/^[0-9a-f]{64}$/.test(declarationHash));
 * ```
 */
export function buildDeclarations(
  connectors: readonly ConnectorInfo[],
  extra = "",
): BuiltDeclarations {
  // Code-unit order, not localeCompare: the hash must not depend on the locale.
  const sorted = [...connectors].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const parts = [
    CODEMODE_DECLARATION,
    declareCaplets(sorted.map((c) => c.name)),
    ...sorted.map(declareConnector),
  ];
  if (extra) parts.push(extra);
  const declarations = parts.join("\n");
  const declarationHash = createHash("sha256").update(declarations).digest("hex");
  return { declarations, declarationHash };
}
