/**
 * Type-checks the model's code against the tools' declarations on the
 * host, warm enough to run beside every execution (Deno's `--check` costs
 * about a second a run).
 *
 * What stays warm: the lib files are read and parsed once per process
 * (parsed and bound `SourceFile`s are shared by every checker), each
 * catalogue's declarations are parsed once per `declarationHash`, and the
 * program is rebuilt from the previous one (`oldProgram`), so a check
 * parses only the user's file and type-checks only that file.
 *
 * The code is wrapped as `source/source.ts` wraps it, typed (`wrap.ts`),
 * so lines match the ones the runtime reports; diagnostics wholly in the
 * wrapper are dropped and positions are given in the user's own code
 * (1-based). Problems in the declarations themselves come back apart, in
 * `declarationErrors`, never on the user's lines.
 *
 * @module
 */
import ts from "typescript";
import {
  CHECK_DIR,
  CHECK_OPTIONS,
  DECLARATIONS_FILE,
  GLOBALS_FILE,
  HOST_BASE,
  libParseCount,
  parseFile,
  sharedFile,
} from "./env.ts";
import { SESSION_FILE, type SessionDeclaration, topLevelDeclarations } from "./session_types.ts";
import {
  type CheckForm,
  formOf,
  FORMS,
  locate,
  MAX_DIAGNOSTICS,
  type TypeDiagnostic,
  wrap,
} from "./wrap.ts";

export { formOf };
export type { CheckForm, SessionDeclaration, TypeDiagnostic };

/** The code to check and the declarations it is checked against. */
export interface CheckRequest {
  code: string;
  form: CheckForm;
  /** Ambient declarations of the tools (`declare const math: { … }`), a script, not a module. */
  declarations: string;
  /** Identifies `declarations`: the same hash must mean the same text. */
  declarationHash: string;
  /**
   * TypeScript type of `input` in the script form, and of an unannotated
   * `input` in the function form; default `any`.
   */
  inputType?: string;
  /**
   * Ambient declarations of what earlier executions of the session declared (a script, as
   * `SessionDeclarations.text()` gives it), so names they left behind are known.
   */
  sessionDeclarations?: string;
}

/** What a check found. */
export interface CheckResult {
  /** Type errors (semantic): advice, they need not block a run. Empty beside syntax errors. */
  diagnostics: TypeDiagnostic[];
  /** Syntax errors: the code cannot run. */
  syntaxErrors: TypeDiagnostic[];
  /**
   * Syntax errors in the declarations themselves, located in the
   * declarations' text; present only when there are some. Never mixed
   * into the user's diagnostics.
   */
  declarationErrors?: TypeDiagnostic[];
  /** What a script declares at top level, typed, for its session's next check (script form). */
  declared?: SessionDeclaration[];
  /** Wall time of the check, in milliseconds. */
  ms: number;
}

/** Counters for tests and benchmarks. */
export interface TypeCheckerStats {
  checks: number;
  /** Declarations parsed by this checker (one per new `declarationHash`). */
  declarationParses: number;
  /** Lib files parsed in this process, by all checkers. */
  libParses: number;
}

/** Options for {@link TypeChecker}. */
export interface TypeCheckerOptions {
  /** Parsed declarations kept, by hash (default {@link DEFAULT_CACHED_DECLARATIONS}). */
  maxCachedDeclarations?: number;
}

/** Catalogue versions kept parsed: the current one and a few a session may still send. */
const DEFAULT_CACHED_DECLARATIONS = 4;

const USER_FILE = `${CHECK_DIR}code.ts`;

/**
 * A TypeScript checker kept warm between checks. One instance serves one
 * caller at a time (checks are synchronous); dispose it to free the
 * program.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TypeChecker } from "./check.ts";
 * using checker = new TypeChecker();
 * const { diagnostics } = checker.check({
 *   code: 'return await math.add({ a: 1, b: "2" });',
 *   form: "script",
 *   declarations: "declare const math: { add(args: { a: number; b: number }): Promise<number> };",
 *   declarationHash: "v1",
 * });
 * assert.deepEqual([diagnostics[0].code, diagnostics[0].line], [2322, 1]);
 * ```
 */
export class TypeChecker {
  #maxDeclarations: number;
  #declarations = new Map<string, ts.SourceFile>();
  #declarationErrors = new Map<string, TypeDiagnostic[]>();
  #current: {
    declarations?: ts.SourceFile;
    text?: string;
    user?: ts.SourceFile;
    session?: ts.SourceFile;
  } = {};
  #program: ts.Program | undefined;
  #checks = 0;
  #declarationParses = 0;
  #host: ts.CompilerHost;

  constructor(options: TypeCheckerOptions = {}) {
    this.#maxDeclarations = Math.max(
      1,
      options.maxCachedDeclarations ?? DEFAULT_CACHED_DECLARATIONS,
    );
    this.#host = {
      getSourceFile: (fileName, options) => {
        if (fileName === USER_FILE) {
          // Parsed here, with the program's options (they force it to be a module).
          const text = this.#current.text;
          if (text === undefined) return undefined;
          return this.#current.user ??= ts.createSourceFile(fileName, text, options, false);
        }
        if (fileName === DECLARATIONS_FILE) return this.#current.declarations;
        if (fileName === SESSION_FILE) return this.#current.session;
        return sharedFile(fileName);
      },
      ...HOST_BASE,
      jsDocParsingMode: ts.JSDocParsingMode.ParseForTypeErrors,
      fileExists: (fileName) =>
        fileName === USER_FILE || fileName === DECLARATIONS_FILE ||
        (fileName === SESSION_FILE && !!this.#current.session) || !!sharedFile(fileName),
      resolveModuleNameLiterals: (literals) => literals.map(() => ({ resolvedModule: undefined })),
      resolveTypeReferenceDirectiveReferences: (refs) =>
        refs.map(() => ({ resolvedTypeReferenceDirective: undefined })),
    };
  }

  /** Counters: checks run, declarations parsed, lib files parsed in this process. */
  get stats(): TypeCheckerStats {
    return {
      checks: this.#checks,
      declarationParses: this.#declarationParses,
      libParses: libParseCount(),
    };
  }

  /** Checks `request.code`; never throws (an internal failure comes back as a warning). */
  check(request: CheckRequest): CheckResult {
    const started = performance.now();
    this.#checks++;
    try {
      const result = this.#check(request);
      return { ...result, ms: performance.now() - started };
    } catch (err) {
      this.#program = undefined; // do not build on a program that failed half-way
      const message = `The type check could not run: ${err instanceof Error ? err.message : err}`;
      const warning: TypeDiagnostic = { code: 0, message, line: 1, column: 1, category: "warning" };
      return { diagnostics: [warning], syntaxErrors: [], ms: performance.now() - started };
    }
  }

  #check(request: CheckRequest): Omit<CheckResult, "ms"> {
    const code = String(request.code ?? "");
    const inputType = request.inputType?.trim() || "any";
    const form = FORMS.includes(request.form) ? request.form : formOf(code);
    const wrapped = wrap(code, form, inputType);
    const sessionText = request.sessionDeclarations ? String(request.sessionDeclarations) : "";
    this.#current = {
      declarations: this.#declarationsFile(request),
      text: wrapped.text,
      ...(sessionText ? { session: parseFile(SESSION_FILE, sessionText) } : {}),
    };
    const program = ts.createProgram({
      rootNames: sessionText
        ? [GLOBALS_FILE, DECLARATIONS_FILE, SESSION_FILE, USER_FILE]
        : [GLOBALS_FILE, DECLARATIONS_FILE, USER_FILE],
      options: CHECK_OPTIONS,
      host: this.#host,
      oldProgram: this.#program,
    });
    this.#program = program;
    const user = program.getSourceFile(USER_FILE)!;
    const place = (list: readonly ts.Diagnostic[]) =>
      locate(list, user, wrapped.start, code.length);
    const syntaxErrors = place(program.getSyntacticDiagnostics(user));
    const diagnostics = syntaxErrors.length > 0 ? [] : place(program.getSemanticDiagnostics(user));
    const declarationErrors = this.#declarationErrorsOf(program, request.declarationHash);
    const declared = syntaxErrors.length > 0
      ? []
      : topLevelDeclarations(user, form, program.getTypeChecker());
    return {
      diagnostics,
      syntaxErrors,
      ...(declarationErrors?.length ? { declarationErrors } : {}),
      ...(declared.length ? { declared } : {}),
    };
  }

  #declarationsFile(request: CheckRequest): ts.SourceFile {
    const hash = String(request.declarationHash);
    const hit = this.#declarations.get(hash);
    if (hit) {
      this.#declarations.delete(hash); // move to the back: most recently used
      this.#declarations.set(hash, hit);
      return hit;
    }
    const file = parseFile(DECLARATIONS_FILE, String(request.declarations ?? ""));
    this.#declarationParses++;
    if (this.#declarations.size >= this.#maxDeclarations) {
      const oldest = this.#declarations.keys().next().value!;
      this.#declarations.delete(oldest);
      this.#declarationErrors.delete(oldest);
    }
    this.#declarations.set(hash, file);
    return file;
  }

  /** Problems of the declarations themselves, found once per hash. */
  #declarationErrorsOf(program: ts.Program, hash: string): TypeDiagnostic[] {
    let errors = this.#declarationErrors.get(hash);
    if (errors) return errors;
    const file = program.getSourceFile(DECLARATIONS_FILE)!;
    errors = locate(program.getSyntacticDiagnostics(file), file, 0, file.text.length);
    if (ts.isExternalModule(file) && errors.length < MAX_DIAGNOSTICS) {
      const message = "The declarations are a module (top-level import or export): " +
        "the names they declare are not global, so the code cannot see them";
      errors.push({ code: 0, message, line: 1, column: 1, category: "error" });
    }
    this.#declarationErrors.set(hash, errors);
    return errors;
  }

  /** Frees the program and the parsed declarations (lib files stay, they are shared). */
  [Symbol.dispose](): void {
    this.#program = undefined;
    this.#current = {};
    this.#declarations.clear();
    this.#declarationErrors.clear();
  }
}
