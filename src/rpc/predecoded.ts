/**
 * The box for a frame's value decoded off the main thread (`big_frames.ts`):
 * the value, or the failure its decoding met. `decodeValue` in `codec.ts`
 * unwraps it.
 *
 * @module
 */
import { CordonError } from "../errors.ts";

/**
 * A value decoded already, off the main thread (`big_frames.ts`), or the
 * failure its decoding met: `decodeValue` (`codec.ts`) returns the value or throws
 * the failure, so a big frame fails exactly as a small one would. Only the
 * host's own frame reader makes one; JSON cannot.
 */
export class Predecoded {
  readonly #value: unknown;
  readonly #failure: { name: string; message: string } | undefined;
  private constructor(value: unknown, failure?: { name: string; message: string }) {
    this.#value = value;
    this.#failure = failure;
  }
  /** Boxes a decoded value. */
  static of(value: unknown): Predecoded {
    return new Predecoded(value);
  }
  /** Boxes a decoding failure (a `DecodeError` when `name` says so). */
  static failed(name: string, message: string): Predecoded {
    return new Predecoded(undefined, { name, message });
  }
  /** True for a box (a brand check no script can fake). */
  static is(value: unknown): value is Predecoded {
    return typeof value === "object" && value !== null && #value in value;
  }
  /** The decoded value, if decoding succeeded. */
  get value(): unknown {
    return this.#value;
  }
  /** The failure, if decoding failed. */
  get failure(): { name: string; message: string } | undefined {
    return this.#failure;
  }
  /** The value, or the failure thrown as it was first raised. */
  unwrap(): unknown {
    const f = this.#failure;
    if (!f) return this.#value;
    if (f.name === "DecodeError") {
      const err = new CordonError("protocol_error", f.message);
      err.name = "DecodeError";
      throw err;
    }
    const err = new Error(f.message);
    err.name = f.name;
    throw err;
  }
}
