/**
 * `createTestKit()`: a real runtime (in-memory store, real sandboxed
 * children) around a connector under test, with the helpers a connector
 * author's `deno test` needs: run model-like code, drive approvals, check
 * outputs, declarations and descriptions. Dispose it with `await using`.
 *
 * @module
 */
import type { Connector, Tool } from "../connectors/types.ts";
import { toDiagnostic } from "../engine/discovery/checked.ts";
import { createRuntime } from "../engine/runtime/runtime.ts";
import type { Runtime } from "../engine/runtime/types.ts";
import type { RuntimeOptions } from "../engine/runtime/options.ts";
import { formOf, TypeChecker } from "../engine/typecheck/check.ts";
import type { Diagnostic, ExecuteRequest, ExecuteResult } from "../engine/execution/types.ts";
import {
  checkConnector,
  checkOutput,
  type ConnectorProblem,
  type OutputCheck,
} from "./connector_check.ts";
import { declarationProblems } from "./declarations.ts";
import { describeOutcome, fail } from "./format.ts";

/** Options for {@link createTestKit}: the runtime's, with test defaults. */
export interface TestKitOptions extends Omit<RuntimeOptions, "connectors"> {
  /** The connectors under test. */
  connectors: readonly Connector[];
}

/** Per-run settings besides the code and its input (limits, policy, `typecheck`). */
export type RunOptions = Omit<ExecuteRequest, "code" | "input">;

/** The executionId of a paused result, or a failure saying why there is nothing to decide. */
function pausedId(result: ExecuteResult, verb: string, from: (...a: never[]) => unknown): string {
  if (result.status === "paused") return result.executionId;
  fail({
    message: `Cannot ${verb}: the run is not paused; ${describeOutcome(result)}`,
    actual: result.status,
    expected: "paused",
    operator: verb,
  }, from);
}

/**
 * A runtime under test and the connectors it serves. Made by
 * {@link createTestKit}; closing the kit closes the runtime, which kills
 * every sandbox child it started.
 */
export class TestKit implements AsyncDisposable {
  /** The runtime, for anything the kit does not wrap (`execution()`, `rollback()`, …). */
  readonly runtime: Runtime;
  /** The connectors under test, as given. */
  readonly connectors: readonly Connector[];
  #checker: TypeChecker | undefined;

  /**
   * Wraps a runtime that serves `connectors`; the kit owns it from here on.
   *
   * @param runtime A runtime made with `connectors` (and any others).
   * @param connectors The connectors whose tools the kit looks up and checks.
   */
  constructor(runtime: Runtime, connectors: readonly Connector[]) {
    this.runtime = runtime;
    this.connectors = connectors;
  }

  /**
   * Runs code in a fresh sandbox, as a model's code runs: a script body, an
   * async function, or a module. Failures come back as values
   * (`status: "error"`); check them with `expectCompleted()` and friends.
   *
   * @param code TypeScript the model might write.
   * @param input Passed to the code as `input`.
   * @param options Limits, policy and `typecheck` for this run.
   * @returns The result: completed, paused or failed, with its calls and logs.
   */
  run(code: string, input?: unknown, options: RunOptions = {}): Promise<ExecuteResult> {
    return this.runtime.execute({ ...options, code, input });
  }

  /**
   * Runs a Python block (Pyodide, in the same sandbox): the connectors are awaitable globals
   * (`await math.add(a=1, b=2)`), `INPUT` holds the input, the last expression is the result.
   *
   * @param code Python the model might write.
   * @param input Passed to the code as `INPUT`.
   * @param options Limits and policy for this run.
   * @returns The result, as {@link run} returns it.
   */
  runPython(code: string, input?: unknown, options: RunOptions = {}): Promise<ExecuteResult> {
    return this.run(code, input, { ...options, language: "python" });
  }

  /**
   * Approves a paused run's waiting calls (or the one numbered `seq`) and
   * returns how the run goes on: completed, failed, or paused again.
   *
   * @param result The paused result.
   * @param options `seq`: approve only this call.
   * @returns The next outcome.
   * @throws {AssertionError} When `result` is not paused (the promise rejects with it).
   */
  async approve(result: ExecuteResult, options: { seq?: number } = {}): Promise<ExecuteResult> {
    const id = pausedId(result, "approve", this.approve);
    return await this.runtime.approve(id, options);
  }

  /**
   * Rejects a paused run's waiting calls (or the one numbered `seq`): each
   * throws a `rejected` error in the script, which may catch it.
   *
   * @param result The paused result.
   * @param reason Why, as the script sees it; or `{ seq, reason }`.
   * @returns The next outcome (`rejected` if the script did not catch it).
   * @throws {AssertionError} When `result` is not paused (the promise rejects with it).
   */
  async reject(
    result: ExecuteResult,
    reason?: string | { seq?: number; reason?: string },
  ): Promise<ExecuteResult> {
    const id = pausedId(result, "reject", this.reject);
    return await this.runtime.reject(id, typeof reason === "string" ? { reason } : reason ?? {});
  }

  /**
   * Supplies the value of a client-resolved call (a tool with
   * `resolution: "client"`); it is checked against the tool's output schema.
   *
   * @param result The paused result.
   * @param seq The waiting call's number, from `result.pending`.
   * @param value What the client answers.
   * @returns The next outcome.
   * @throws {AssertionError} When `result` is not paused (the promise rejects with it).
   */
  async resolve(result: ExecuteResult, seq: number, value: unknown): Promise<ExecuteResult> {
    const id = pausedId(result, "resolve", this.resolve);
    return await this.runtime.resolve(id, seq, value);
  }

  /**
   * A tool of the connectors under test.
   *
   * @param path `connector.tool`, e.g. `weather.forecast`.
   * @returns The tool, with its schemas and validators.
   * @throws {AssertionError} When there is no such tool; the message lists those there are.
   */
  tool(path: string): Tool {
    const dot = path.indexOf(".");
    const connector = this.connectors.find((c) => c.name === path.slice(0, dot));
    const tool = dot > 0 ? connector?.tools.find((t) => t.name === path.slice(dot + 1)) : undefined;
    if (tool) return tool;
    const known = this.connectors.flatMap((c) => c.tools.map((t) => `${c.name}.${t.name}`));
    fail({
      message: `There is no tool "${path}"; the kit has ${known.join(", ") || "none"}`,
      actual: path,
      expected: known,
      operator: "tool",
    }, this.tool);
  }

  /**
   * Checks a sample output against a tool's output schema (its zod schema
   * for `defineConnector` tools, else its JSON Schema).
   *
   * @param path `connector.tool`.
   * @param sample A value the tool might return.
   * @returns The parsed value, or a message naming each mismatch.
   * @throws {TypeError} When the tool has no output schema.
   */
  checkOutput(path: string, sample: unknown): OutputCheck {
    return checkOutput(this.tool(path), sample);
  }

  /**
   * Asserts that a sample output matches a tool's output schema, so a
   * recorded backend response or a fixture keeps to what the declarations
   * promise the model.
   *
   * @param path `connector.tool`.
   * @param sample A value the tool might return.
   * @returns The value as the schema parses it (defaults filled in).
   * @throws {AssertionError} When it does not match, or the tool has no output schema.
   */
  assertOutputMatches(path: string, sample: unknown): unknown {
    const tool = this.tool(path);
    if (!tool.outputSchema && !tool.validateOutput) {
      fail({
        message: `${path} has no output schema, so a sample cannot be checked; give it one`,
        operator: "assertOutputMatches",
      }, this.assertOutputMatches);
    }
    const checked = checkOutput(tool, sample);
    if (checked.ok) return checked.value;
    fail({
      message: `The sample does not match ${path}'s output schema: ${checked.message}`,
      actual: sample,
      expected: tool.outputSchema,
      operator: "assertOutputMatches",
    }, this.assertOutputMatches);
  }

  /**
   * Type-checks code against the runtime's declarations without running
   * it, as `typecheck: "strict"` would before a run.
   *
   * @param code TypeScript the model might write.
   * @param options `inputType`: the TypeScript type of `input` (default `any`).
   * @returns Syntax and type errors, located in `code`; empty when it checks.
   */
  typecheck(code: string, options: { inputType?: string } = {}): Diagnostic[] {
    const { declarations, declarationHash } = this.runtime.types();
    this.#checker ??= new TypeChecker();
    const checked = this.#checker.check({
      code,
      form: formOf(code),
      declarations,
      declarationHash,
      inputType: options.inputType,
    });
    return [...checked.syntaxErrors, ...checked.diagnostics].map(toDiagnostic);
  }

  /**
   * Everything about the connectors under test that would mislead or fail a
   * model: missing descriptions, invalid or untyped schemas, and type
   * errors in the declarations the runtime generates from them.
   *
   * @returns The problems; empty when there are none.
   */
  checkConnectors(): ConnectorProblem[] {
    const names = this.connectors.map((c) => c.name);
    const declarations = this.runtime.types().declarations;
    return [
      ...this.connectors.flatMap(checkConnector),
      ...declarationProblems(declarations, names),
    ];
  }

  /**
   * Asserts that {@link TestKit.checkConnectors} finds nothing.
   *
   * @throws {AssertionError} Listing every problem with where it is.
   */
  assertConnectorsValid(): void {
    const problems = this.checkConnectors();
    if (problems.length === 0) return;
    const list = problems.map((p) => `  ${p.where}: ${p.message}`).join("\n");
    fail({
      message: `The connectors have ${problems.length} problem(s):\n${list}`,
      actual: problems,
      expected: [],
      operator: "assertConnectorsValid",
    }, this.assertConnectorsValid);
  }

  /** Closes the runtime: running executions end, every sandbox child is killed. */
  async close(): Promise<void> {
    this.#checker?.[Symbol.dispose]();
    this.#checker = undefined;
    await this.runtime.close();
  }

  /** The same as {@link TestKit.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Creates a real runtime for a connector's tests and wraps it in a
 * {@link TestKit}. Test defaults, each overridable: an in-memory database
 * (`db: ":memory:"`), no warm pool (`pool: { size: 0 }`: each run starts a
 * child, and nothing is left running between tests), and no type check
 * beside each run (`typecheck: "off"`; use `kit.typecheck()` or a run's
 * `typecheck` option to check on purpose).
 *
 * @param options The connectors under test, and any runtime options.
 * @returns The kit; dispose it (`await using`) to close the runtime.
 */
export async function createTestKit(options: TestKitOptions): Promise<TestKit> {
  const runtime = await createRuntime({
    ...options,
    // `?? default`, not spread order: an option given as `undefined` still gets the test default.
    db: options.db ?? ":memory:",
    pool: options.pool ?? { size: 0 },
    typecheck: options.typecheck ?? "off",
  });
  return new TestKit(runtime, options.connectors);
}
