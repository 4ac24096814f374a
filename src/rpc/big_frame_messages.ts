/**
 * The messages between the host's frame reader (`big_frames.ts`) and the
 * Worker that parses big frames (`big_frame_worker.ts`).
 *
 * @module
 */
import type { FrameFault } from "./framing.ts";
import type { Slice } from "./value_slices.ts";

/** A line to parse (its bytes, each part's buffer transferred), or the ack of a slice. */
export type BigFrameRequest =
  | { id: number; parts: Uint8Array[] }
  | { ack: number };

/** A slice of the parsed frame, or why the line is refused. */
export type BigFrameReply =
  | { id: number; fault: FrameFault }
  | (Slice & { id: number; chars: number; last: boolean });
