/**
 * The check an execution's input passes before anything is admitted: it must
 * be something the codec can store and send to the child. Found here, a bad
 * input is a typed `invalid_input` before a workspace is made, a session slot
 * taken or a row written; found later, the store threw and the slot stayed
 * busy.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { CodecError, encodeValue } from "../../rpc/codec.ts";

/** How much of a codec path a message quotes: enough to find the spot, not 200 `[0]`s. */
const MAX_QUOTED_PATH_CHARS = 120;

/**
 * Throws `invalid_input` when `input` cannot be encoded as the run frame
 * carries it (nested past `MAX_VALUE_DEPTH - 1`, a cycle, a function, a typed
 * array other than `Uint8Array`).
 *
 * @example
 * ```ts
 * import { checkInput } from "./input.ts";
 * checkInput({ n: 1, when: new Date(0) });
 * let deep: unknown = 1;
 * for (let i = 0; i < 1000; i++) deep = [deep];
 * try {
 *   checkInput(deep);
 *   throw new Error("not refused");
 * } catch (err) {
 *   console.assert((err as { code?: string }).code === "invalid_input");
 * }
 * ```
 */
export function checkInput(input: unknown): void {
  try {
    // As the run frame carries it: one level down, so what passes here also reaches the child.
    encodeValue({ input });
  } catch (err) {
    if (!(err instanceof CodecError)) throw err;
    const path = err.path.length > MAX_QUOTED_PATH_CHARS
      ? `${err.path.slice(0, MAX_QUOTED_PATH_CHARS)}…`
      : err.path || "(root)";
    throw new CordonError("invalid_input", `The input cannot be used: ${err.reason} (at ${path})`, {
      details: { path: err.path.slice(0, MAX_QUOTED_PATH_CHARS) },
    });
  }
}
