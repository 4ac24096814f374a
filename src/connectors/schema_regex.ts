/**
 * The regular expression engine for patterns in schemas that come from
 * outside (`pattern`, `patternProperties`): RE2, which matches in time linear
 * in the input. V8's backtracking engine took 5 s to test `^(a+)+$` against a
 * 27-character string, with the host's event loop blocked throughout.
 *
 * RE2 has no backreferences and no lookaround. A pattern that uses them (or
 * that is not a valid pattern at all) is either refused, which fails the
 * schema's compilation, or ignored: it then matches everything, validation
 * gets looser, never stricter, and a warning names it.
 *
 * @module
 */
import { RE2JS } from "re2js";

/** What to do with a pattern RE2 cannot run. */
export type UnsupportedPatterns = "refuse" | "ignore";

/** The engine Ajv calls for each pattern (`code.regExp`); `code` names it in generated code. */
export interface SchemaRegExpEngine {
  (pattern: string, flags: string): { test(text: string): boolean };
  code: string;
}

/** A pattern RE2 cannot run, refused. */
export class UnsupportedPatternError extends Error {
  constructor(readonly pattern: string, reason: string) {
    super(
      `The pattern ${
        JSON.stringify(pattern)
      } cannot be used: ${reason}. Patterns run on a linear-time engine (RE2), which has no backreferences or lookaround`,
    );
    this.name = "UnsupportedPatternError";
  }
}

/**
 * An engine that compiles each pattern with RE2. Ignored patterns are pushed
 * onto `warnings`.
 *
 * @example
 * ```ts
 * import { schemaRegExpEngine } from "./schema_regex.ts";
 * const warnings: string[] = [];
 * const engine = schemaRegExpEngine("ignore", warnings);
 * console.assert(!engine("^(a+)+$", "u").test("a".repeat(10_000) + "!"));
 * console.assert(engine("(a)\\1", "u").test("ab") && warnings.length === 1);
 * ```
 */
export function schemaRegExpEngine(
  unsupported: UnsupportedPatterns,
  warnings: string[],
): SchemaRegExpEngine {
  const engine = (pattern: string) => {
    let re: RE2JS;
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (unsupported === "refuse") throw new UnsupportedPatternError(pattern, reason);
      warnings.push(
        `The pattern ${JSON.stringify(pattern)} is not checked: ${reason} (linear-time engine)`,
      );
      return { test: () => true, toString: () => `ignored:${pattern}` };
    }
    // Ajv keys its compiled patterns by `toString()`: each must have its own.
    return { test: (text: string) => re.test(text), toString: () => `re2:${pattern}` };
  };
  return Object.assign(engine, { code: "re2" });
}
