/**
 * What `describe()` answers for a tool or a snippet: its signature, input
 * and output types, examples, and the output shape seen in results.
 *
 * @module
 */

/** What `describe()` returns for a tool or a snippet. */
export interface Description {
  /** A tool, or a snippet (code runs it with `codemode.run`). */
  kind: "tool" | "snippet";
  /** What was described: `connector.tool` or `snippet:name`. */
  path: string;
  /** The tool's or snippet's own description. */
  description: string;
  /** A one-line call signature, e.g. `math.add(args: { a: number; b: number }): Promise<number>`. */
  signature: string;
  /** The input type, as TypeScript. */
  input: string;
  /** The output type, as TypeScript (`unknown` when neither a schema nor observations say). */
  output: string;
  /** Lines of code that call it, to adapt. */
  examples: string[];
  /** The output shape seen in results, for tools without a useful output schema. */
  observedShape?: string;
  /** How many results the observed shape was built from. */
  observedSamples?: number;
  /** Tools: how the tool behaves (`readOnly`, `requiresApproval`, `replay`, …). */
  annotations?: Record<string, unknown>;
  /** Snippets: the saved source, as `codemode.run` runs it. */
  code?: string;
  /** Snippets: the version described and whether it still type-checks. */
  version?: number;
  /** Snippets: true when, checked again after the tool declarations changed, it failed. */
  stale?: boolean;
  /** Snippets: the connectors its code uses; it does not run without them. */
  connectors?: string[];
}
