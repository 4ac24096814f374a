/**
 * The arguments of `caplets.<id>.getPrompt(name, args)` and `complete(input)`, read from what a
 * script sent and checked: anything else is `invalid_input`, never passed on to a backend.
 *
 * @module
 */
import type { ConnectorHandle } from "../../connectors/types.ts";
import { CordonError } from "../../errors.ts";

type CompleteParams = Parameters<NonNullable<ConnectorHandle["complete"]>>;

const COMPLETE_SHAPE =
  'complete() takes { ref: { type: "prompt", name } | { type: "resourceTemplate", uri }, argument: { name, value } }';

/** A prompt's arguments: an object of strings (numbers and booleans are written as strings). */
export function promptArgs(args: unknown): Record<string, string> | undefined {
  if (args === undefined || args === null) return undefined;
  if (typeof args !== "object" || Array.isArray(args)) {
    throw new CordonError("invalid_input", "getPrompt(name, args) takes args as an object");
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (!["string", "number", "boolean"].includes(typeof value)) {
      throw new CordonError("invalid_input", `getPrompt(): argument ${key} must be a string`);
    }
    out[key] = String(value);
  }
  return out;
}

function text(value: unknown, what: string): string {
  if (typeof value !== "string") {
    throw new CordonError("invalid_input", `${COMPLETE_SHAPE}: ${what}`);
  }
  return value;
}

/**
 * `complete({ ref, argument })` as documented; `complete(ref, argument)` (Cordon's older form)
 * reads the same. `ref.type` is `"prompt"`, `"resourceTemplate"` or MCP's `"resource"`.
 */
export function completeArgs(
  args: unknown[],
): { ref: CompleteParams[0]; argument: CompleteParams[1] } {
  const first = args[0] as Record<string, unknown> | undefined;
  const input = first && typeof first === "object" && "ref" in first
    ? first
    : { ref: first, argument: args[1] };
  const ref = input.ref as Record<string, unknown> | undefined;
  const argument = input.argument as Record<string, unknown> | undefined;
  if (!ref || typeof ref !== "object" || !argument || typeof argument !== "object") {
    throw new CordonError("invalid_input", COMPLETE_SHAPE);
  }
  const arg = {
    name: text(argument.name, "argument.name must be a string"),
    value: text(argument.value, "argument.value must be a string"),
  };
  if (ref.type === "prompt") {
    return {
      ref: { type: "prompt", name: text(ref.name, "ref.name must be a string") },
      argument: arg,
    };
  }
  if (ref.type === "resourceTemplate" || ref.type === "resource") {
    const uri = text(ref.uri, "ref.uri must be a string");
    return { ref: { type: "resourceTemplate", uri }, argument: arg };
  }
  throw new CordonError("invalid_input", `${COMPLETE_SHAPE}: unknown ref.type`);
}
