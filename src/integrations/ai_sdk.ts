/**
 * `codeTool(runtime, options)`: Cordon as one Vercel AI SDK tool for
 * `generateText`/`streamText`. The model writes a program; the tool runs it
 * through `runtime.execute()` and answers with a compact
 * {@link CodeToolOutput}. Failures (a syntax error, a thrown error, a
 * timeout) are answers with a code and a line, never exceptions, so the
 * agent loop goes on and the model can fix its code.
 *
 * A run that pauses on a call needing approval goes on in one of two ways:
 *
 * - the app's `onPause` decides the waiting calls and the run continues in
 *   the same tool call (each decision through `runtime.approve`, `reject` or
 *   `resolveExecution`, so it is journaled like any other);
 * - otherwise the tool answers `paused` with the `executionId` and the
 *   waiting calls. A person decides elsewhere (the console, the HTTP API,
 *   `runtime.approve`), and a later call of the same tool with
 *   `{ executionId }` returns the outcome, waiting up to `waitMs` for it.
 *
 * @module
 */
// `@ignore`: the AI SDK documents `Tool`; without it `deno doc --lint` wants it exported.
import {
  /** @ignore */
  type Tool,
  tool,
} from "ai";
import { z } from "zod";
import { CordonError, toErrorInfo } from "../errors.ts";
import { DEFAULT_NAMESPACE } from "../engine/common/namespace.ts";
import { MAX_PAGE } from "../engine/common/paging.ts";
import type { Runtime } from "../engine/runtime/types.ts";
import type { ExecuteRequest, ExecutionPolicy } from "../engine/execution/types.ts";
import type { Limits } from "../engine/execution/limits.ts";
import { DEFAULT_MAX_ROUNDS, drive, type OnPause } from "./ai_sdk_drive.ts";
import {
  type CodeToolOutput,
  DEFAULT_CONSOLE_LINES,
  DEFAULT_RESULT_CHARS,
  type OutputBounds,
  refusedOutput,
  type Snapshot,
  toOutput,
} from "./ai_sdk_output.ts";

/** How long a call with `{ executionId }` waits by default for a paused or running run to end. */
export const DEFAULT_WAIT_MS = 30_000;
/** The longest `waitMs` allowed: an AI SDK step should not hang on one tool call for longer. */
export const MAX_WAIT_MS = 600_000;

/** Options for {@link codeTool}. */
export interface CodeToolOptions {
  /** The namespace runs belong to (their snippets, their state); `default` by default. */
  namespace?: string;
  /** Limits for every run, each up to the runtime's maximum. */
  limits?: Partial<Limits>;
  /** Shorthand for `limits.timeoutMs`. */
  timeoutMs?: number;
  /** What runs may reach (`net`: hosts they may `fetch`). */
  policy?: ExecutionPolicy;
  /** The type check: `warn` (the runtime's default), `strict` or `off`. */
  typecheck?: ExecuteRequest["typecheck"];
  /** Runs every program in this existing session, so declarations carry over between calls. */
  sessionId?: string;
  /** Languages the model may write in (default `["typescript"]`); more adds a `language` field. */
  languages?: ("typescript" | "python")[];
  /** Text added after the runtime's model description (house rules, what the tools are for). */
  instructions?: string;
  /** Decides calls a run waits on, so it continues in the same tool call (see the module docs). */
  onPause?: OnPause;
  /** Times `onPause` is asked in one tool call before the tool answers `paused` (default 10). */
  maxRounds?: number;
  /** How long `{ executionId }` waits for a paused or running run to end, in ms (default 30 s). */
  waitMs?: number;
  /** Console lines an answer carries (default 50). */
  maxConsoleLines?: number;
  /** The longest result, as JSON characters, an answer carries (default 20,000). */
  maxResultChars?: number;
}

/** What the model sends: code to run, or the id of a run to pick up. */
export interface CodeToolInput {
  /** The program: a script body (top-level `await` and `return`) or `async (input) => { … }`. */
  code?: string;
  /** The value the code sees as `input`. */
  input?: unknown;
  /** Instead of `code`: a paused or running execution whose outcome to get. */
  executionId?: string;
  /** The language of `code`, when the tool offers more than TypeScript. */
  language?: "typescript" | "python";
}

/** Said after the runtime's description: how this tool answers and how a pause goes on. */
const PROTOCOL =
  "Send { code, input? } to run a program. The answer has a status: completed (result), " +
  "error (error.code, error.message and the line), or paused: calls wait for a person's " +
  "approval (pending). For a paused run, never send the code again; once it is decided, call " +
  "this tool with only { executionId } to get the outcome.";

/** A whole-number option, its default when absent; `invalid_request` when out of range. */
function setting(
  name: string,
  value: number | undefined,
  fallback: number,
  [min, max]: [number, number],
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CordonError(
      "invalid_request",
      `codeTool: ${name} must be a whole number from ${min} to ${max}, not ${value}`,
    );
  }
  return value;
}

function inputSchema(languages: readonly string[]) {
  const base = {
    code: z.string().optional().describe(
      "The program to run: a script body (top-level await and return) or async (input) => { … }",
    ),
    input: z.unknown().optional().describe("A value the code sees as `input`"),
    executionId: z.string().optional().describe(
      "Instead of code: the id of a paused run, to get its outcome once its calls are decided",
    ),
  };
  if (languages.length < 2) return z.object(base);
  return z.object({
    ...base,
    language: z.enum(languages as [string, ...string[]]).optional().describe(
      `The language of code (default ${languages[0]})`,
    ),
  });
}

/**
 * An AI SDK tool that runs the model's code in `runtime`. Its description is
 * `runtime.modelDescription()` (read once, here) plus how the tool answers and `instructions`.
 * Throws `invalid_request` for options out of range.
 *
 * @example
 * ```ts
 * import { generateText, isStepCount } from "ai";
 * import { MockLanguageModelV4 } from "ai/test";
 * import { codeTool, type CodeToolOutput, createRuntime } from "../../mod.ts";
 *
 * await using runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
 * const cordon = await codeTool(runtime);
 * const usage = {
 *   inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
 *   outputTokens: { total: 1, text: 1, reasoning: undefined },
 * };
 * const model = new MockLanguageModelV4({
 *   doGenerate: [
 *     {
 *       content: [{ type: "tool-call", toolCallId: "c1", toolName: "cordon", input: '{"code":"return 6 * 7"}' }],
 *       finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [],
 *     },
 *     { content: [{ type: "text", text: "42" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
 *   ],
 * });
 * const answer = await generateText({ model, tools: { cordon }, stopWhen: isStepCount(3), prompt: "6 × 7?" });
 * const output = answer.steps[0].toolResults[0].output as CodeToolOutput;
 * if (output.result !== 42 || answer.text !== "42") throw new Error(output.status);
 * ```
 */
export async function codeTool(
  runtime: Runtime,
  options: CodeToolOptions = {},
): Promise<Tool<CodeToolInput, CodeToolOutput>> {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const languages = options.languages ?? ["typescript"];
  if (languages.length === 0 || languages.some((l) => l !== "typescript" && l !== "python")) {
    throw new CordonError(
      "invalid_request",
      `codeTool: languages must list "typescript" and/or "python": ${JSON.stringify(languages)}`,
    );
  }
  const maxRounds = setting("maxRounds", options.maxRounds, DEFAULT_MAX_ROUNDS, [1, 1_000]);
  const wait = setting("waitMs", options.waitMs, DEFAULT_WAIT_MS, [0, MAX_WAIT_MS]);
  const bounds: OutputBounds = {
    // One page of stored lines (plus one, to know there are more) is all a read-back fetches.
    consoleLines: setting("maxConsoleLines", options.maxConsoleLines, DEFAULT_CONSOLE_LINES, [
      0,
      MAX_PAGE - 1,
    ]),
    resultChars: setting("maxResultChars", options.maxResultChars, DEFAULT_RESULT_CHARS, [
      0,
      16_000_000,
    ]),
  };

  const description = [
    await runtime.modelDescription({ namespace }),
    PROTOCOL,
    ...(languages.includes("python")
      ? ["Python runs too (language: python): connectors are globals of the same names."]
      : []),
    ...(options.instructions ? [options.instructions] : []),
  ].join("\n");

  /** The stored execution, if it is this namespace's (another's is "not found" too). */
  const read = async (executionId: string): Promise<Snapshot> => {
    const details = await runtime.execution(executionId);
    if (!details || details.namespace !== namespace) {
      throw new CordonError("execution_not_found", `There is no execution "${executionId}"`);
    }
    const page = await runtime.readLogs({
      logRef: details.logRef,
      limit: bounds.consoleLines + 1,
      namespace,
    });
    return {
      kind: "stored",
      details,
      logs: page.items,
      logsTruncated: page.items.length > bounds.consoleLines || page.nextCursor !== undefined,
    };
  };

  const request = (input: CodeToolInput): ExecuteRequest => {
    const r: ExecuteRequest = { code: String(input.code), namespace };
    if (input.input !== undefined) r.input = input.input;
    if (input.language !== undefined) r.language = input.language;
    if (options.limits) r.limits = options.limits;
    if (options.timeoutMs !== undefined) r.timeoutMs = options.timeoutMs;
    if (options.policy) r.policy = options.policy;
    if (options.typecheck) r.typecheck = options.typecheck;
    if (options.sessionId) r.sessionId = options.sessionId;
    return r;
  };

  return tool<CodeToolInput, CodeToolOutput, Record<string, never>>({
    description,
    inputSchema: inputSchema(languages) as z.ZodType<CodeToolInput>,
    async execute(input, { toolCallId, abortSignal }) {
      const hasCode = typeof input.code === "string" && input.code.trim() !== "";
      const hasId = typeof input.executionId === "string" && input.executionId !== "";
      if (hasCode === hasId) {
        return refusedOutput({
          code: "invalid_request",
          message: hasCode
            ? "Send either code (a new run) or executionId (a paused run), not both"
            : "Send code to run, or the executionId of a paused run",
        });
      }
      try {
        const start = hasCode
          ? { kind: "result" as const, out: await runtime.execute(request(input)) }
          : await read(input.executionId!);
        const { snap, notices } = await drive({
          runtime,
          maxRounds,
          deadline: performance.now() + (hasCode ? 0 : wait),
          toolCallId,
          read,
          ...(options.onPause ? { onPause: options.onPause } : {}),
          ...(abortSignal ? { signal: abortSignal } : {}),
        }, start);
        return toOutput(snap, bounds, notices);
      } catch (err) {
        // A refusal (an unknown id, a closed runtime): a typed answer. Anything else is a bug.
        if (err instanceof CordonError) return refusedOutput(toErrorInfo(err));
        throw err;
      }
    },
  });
}
