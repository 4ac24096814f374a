/**
 * {@link readAtMost}: a body read whole only while it stays within a bound, for request and
 * response bodies whose sender is not trusted to say their size; {@link concatBytes}, the pieces
 * of something read as one array.
 *
 * @module
 */

/**
 * The bytes of `body`, or `undefined` (the stream cancelled) once more than `max` bytes came.
 * No body reads as empty.
 */
export async function readAtMost(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

/** `parts` one after another in one new array of `total` bytes (their summed length). */
export function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
