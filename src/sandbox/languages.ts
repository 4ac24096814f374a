/**
 * The languages a run may be written in, as one small table: each entry names a language, the
 * spellings a request may use for it, and whether this build runs it. The guest dispatches on
 * `RunParams.language`; the host gives a language's children the extra read-only files it names
 * (`LanguageFiles`, from the runtime's environment). Adding a runner is one entry here, one in
 * the guest's dispatch, and its files.
 *
 * @module
 */
import { CordonError } from "../errors.ts";

/** A language a run may be written in (its canonical name). */
export type Language = "typescript" | "python" | "bash";

/** One language: its name, the spellings accepted for it, and whether it runs. */
export interface LanguageEntry {
  name: Language;
  /** Spellings a request may use (lower case), besides `name`. */
  aliases: readonly string[];
  /** False: recognised but refused with `unsupported_language` (no runner yet). */
  runs: boolean;
  /** Whether `session: true` works with it (a session keeps the child's interpreter). */
  sessions: boolean;
}

/** Every language Cordon knows, TypeScript first (the default). */
export const LANGUAGES: readonly LanguageEntry[] = [
  { name: "typescript", aliases: ["ts", "javascript", "js"], runs: true, sessions: true },
  { name: "python", aliases: ["py", "python3"], runs: true, sessions: true },
  { name: "bash", aliases: ["sh"], runs: true, sessions: false },
];

/** Files a language's children may read (besides a workspace) and the guest's arguments. */
export interface LanguageFiles {
  /** Absolute paths the child may read, never write. */
  readPaths: readonly string[];
  /** Arguments after the guest entry (the guest reads them before its first line of user code). */
  args: readonly string[];
}

/**
 * The entry for `raw` (any accepted spelling, any case; absent means TypeScript). Throws
 * `invalid_request` for an unknown language and `unsupported_language` for one without a runner.
 */
export function languageOf(raw: unknown): LanguageEntry {
  if (raw === undefined || raw === null) return LANGUAGES[0];
  const wanted = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  const entry = LANGUAGES.find((l) => l.name === wanted || l.aliases.includes(wanted));
  if (!entry) {
    const known = LANGUAGES.flatMap((l) => [l.name, ...l.aliases]).join(", ");
    throw new CordonError(
      "invalid_request",
      `Unknown language ${JSON.stringify(raw)}; use one of ${known}`,
    );
  }
  if (!entry.runs) {
    throw new CordonError(
      "unsupported_language",
      `${entry.name} code cannot run in this version of Cordon yet`,
      { details: { language: entry.name } },
    );
  }
  return entry;
}

/** True when `raw` names TypeScript (or is absent): the language TypeScript's checks apply to. */
export function isTypeScript(raw: unknown): boolean {
  if (raw === undefined || raw === null) return true;
  const wanted = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  return wanted === "typescript" || LANGUAGES[0].aliases.includes(wanted);
}
