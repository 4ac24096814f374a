/**
 * One call of the embedding function, bounded and checked: it answers within its deadline or
 * fails `embedder_timeout`; what it returns is one finite vector per text, all of one length
 * (the configured one, if any), or it fails `embedder_malformed`; anything it throws is
 * `embedder_failed` unless it is already one of those. The vectors come back unit length, so
 * cosine similarity is a dot product.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { EmbedFunction } from "./options.ts";

/** The texts, vectors and checks of one call. */
export interface EmbedCall {
  embed: EmbedFunction;
  texts: string[];
  /** The expected length, when known. */
  dimensions?: number;
  timeoutMs: number;
  /** Aborts the wait (the runtime closing). */
  signal?: AbortSignal;
}

const EMBEDDER_CODES = new Set(["embedder_failed", "embedder_timeout", "embedder_malformed"]);

function malformed(why: string): CordonError {
  return new CordonError("embedder_malformed", `The embedder's answer is unusable: ${why}`);
}

/** `vector` scaled to length 1 (a zero vector stays zero: it is near nothing). */
export function unitVector(values: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(values);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i] * out[i];
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < out.length; i++) out[i] *= scale;
  }
  return out;
}

/** Checks an answer and makes unit vectors of it. */
export function checkVectors(
  answer: unknown,
  count: number,
  dimensions: number | undefined,
): Float32Array[] {
  if (!Array.isArray(answer)) throw malformed("it is not an array of vectors");
  if (answer.length !== count) {
    throw malformed(`it has ${answer.length} vectors for ${count} texts`);
  }
  let size = dimensions;
  return answer.map((v, i) => {
    if (!(v instanceof Float32Array) && !Array.isArray(v)) {
      throw malformed(`vector ${i} is not an array of numbers`);
    }
    if (v.length === 0) throw malformed(`vector ${i} is empty`);
    size ??= v.length;
    if (v.length !== size) {
      throw malformed(`vector ${i} has ${v.length} dimensions, not ${size}`);
    }
    for (const x of v as ArrayLike<unknown> as number[]) {
      if (typeof x !== "number" || !Number.isFinite(x)) {
        throw malformed(`vector ${i} holds ${String(x)}, not a finite number`);
      }
    }
    return unitVector(v as ArrayLike<number>);
  });
}

/** Calls the embedder once; resolves to unit vectors or rejects with a typed error. */
export async function embedOnce(call: EmbedCall): Promise<Float32Array[]> {
  if (call.texts.length === 0) return [];
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => controller.abort(call.signal?.reason);
  call.signal?.addEventListener("abort", onAbort, { once: true });
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new CordonError(
        "embedder_timeout",
        `The embedder did not answer ${call.texts.length} text(s) within ${call.timeoutMs} ms`,
        { details: { timeoutMs: call.timeoutMs } },
      );
      controller.abort(err);
      reject(err);
    }, call.timeoutMs);
    controller.signal.addEventListener("abort", () => {
      const reason = controller.signal.reason;
      reject(
        reason instanceof CordonError
          ? reason
          : new CordonError("embedder_failed", "The embedding call was abandoned: search closed"),
      );
    }, { once: true });
  });
  if (call.signal?.aborted) onAbort();
  try {
    const answer = await Promise.race([
      Promise.try(() => call.embed([...call.texts], { signal: controller.signal })),
      stopped,
    ]);
    return checkVectors(answer, call.texts.length, call.dimensions);
  } catch (err) {
    if (err instanceof CordonError && EMBEDDER_CODES.has(err.code)) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new CordonError("embedder_failed", `The embedder failed: ${message}`, { cause: err });
  } finally {
    clearTimeout(timer);
    call.signal?.removeEventListener("abort", onAbort);
    // The race is settled; a late rejection of `stopped` is not an unhandled one.
    stopped.catch(() => {});
  }
}
