/**
 * What a sandbox child writes, read as untrusted: a broken stdout stream told as an
 * {@link ErrorInfo} ({@link faultInfo}), and stderr kept only up to a bound while it counts
 * toward the same output limit as stdout ({@link readCapped}).
 *
 * @module
 */
import { type ErrorInfo, errorInfo } from "../errors.ts";
import type { FrameFault } from "../rpc/framing.ts";

/** How much of a child's stderr is kept for diagnostics. */
export const MAX_STDERR_BYTES = 16 * 1024;

/** The error a stream fault ends the child with. */
export function faultInfo(fault: FrameFault): ErrorInfo {
  switch (fault.kind) {
    case "frame_too_large":
      return errorInfo("protocol_error", `The sandbox sent a frame over ${fault.limit} bytes`);
    case "frame_too_deep":
      return errorInfo(
        "protocol_error",
        `The sandbox sent a frame nested over ${fault.limit} deep`,
      );
    case "output_too_large":
      return errorInfo(
        "output_limit",
        `The sandbox wrote more than ${fault.limit} bytes of output`,
      );
    case "malformed":
      return errorInfo(
        "protocol_error",
        "The sandbox wrote something that is not a JSON-RPC frame",
        {
          excerpt: fault.excerpt,
        },
      );
    case "unreadable":
      return errorInfo("protocol_error", `The sandbox sent a frame ${fault.reason}`);
  }
}

/**
 * Reads `stream` to its end, keeping the first `max` bytes as text; `onFlood` is called once
 * when more than `maxTotal` bytes have come.
 */
export async function readCapped(
  stream: ReadableStream<Uint8Array>,
  max: number,
  maxTotal: number,
  onFlood: () => void,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let kept = 0;
  let total = 0;
  try {
    for await (const chunk of stream) {
      total += chunk.length;
      if (total > maxTotal) {
        onFlood();
        maxTotal = Infinity;
      }
      if (kept < max) {
        const part = chunk.subarray(0, max - kept);
        kept += part.length;
        text += decoder.decode(part, { stream: true });
      }
    }
  } catch {
    // The pipe broke when the process died.
  }
  return text;
}
