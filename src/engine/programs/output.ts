/**
 * An interactive program's output as the document's sessions read it: a
 * list of lines (the last one possibly partial) with a poll cursor that
 * advances and a log view that does not. Offsets count lines from the start
 * of the run; when more than `maxLines` are kept, the oldest are dropped and
 * offsets keep counting. `stdout` and `stderr` are kept whole up to a byte
 * bound, for the final {@link RunResult}.
 *
 * @module
 */
import type { ProgramLog } from "./types.ts";

/** Lines a session keeps for `poll`/`log` (the document's implementation keeps 20,000). */
export const MAX_SESSION_LINES = 20_000;
/** Characters of each of stdout and stderr kept for the final result. */
export const MAX_STREAM_CHARS = 4 * 1024 * 1024;

/** The output of one program. */
export class ProgramOutput {
  #lines: string[] = [];
  #base = 0;
  #partial = "";
  #cursor = 0;
  #streams = { stdout: "", stderr: "" };
  #cut = { stdout: false, stderr: false };

  constructor(readonly maxLines: number = MAX_SESSION_LINES) {}

  /** Adds a chunk of one stream (CRLF read as LF). */
  append(chunk: string, stream: "stdout" | "stderr"): void {
    const text = chunk.replace(/\r\n/g, "\n");
    const kept = this.#streams[stream];
    if (kept.length < MAX_STREAM_CHARS) {
      this.#streams[stream] = kept + text.slice(0, MAX_STREAM_CHARS - kept.length);
    }
    if (kept.length + text.length > MAX_STREAM_CHARS) this.#cut[stream] = true;
    const parts = (this.#partial + text).split("\n");
    this.#partial = parts.pop()!;
    for (const line of parts) this.#lines.push(line);
    const drop = this.#lines.length - this.maxLines;
    if (drop > 0) {
      this.#lines.splice(0, drop);
      this.#base += drop;
      if (this.#cursor < this.#base) this.#cursor = this.#base;
    }
  }

  /** Ends the output: a partial last line becomes a line. */
  finish(): void {
    if (this.#partial !== "") {
      this.#lines.push(this.#partial);
      this.#partial = "";
    }
  }

  #view(start: number, limit: number | undefined): ProgramLog {
    const last = this.#base + this.#lines.length;
    let end = last;
    if (limit !== undefined && limit > 0) end = Math.min(end, start + limit);
    let output = this.#lines.slice(start - this.#base, end - this.#base).join("\n");
    if (end === last && this.#partial !== "") output += (output === "" ? "" : "\n") + this.#partial;
    return { output, offset: start, nextOffset: end };
  }

  /** Lines since the last poll (at most `limit`); the cursor moves past them. */
  poll(limit?: number): ProgramLog {
    const start = Math.max(this.#cursor, this.#base);
    const view = this.#view(start, limit);
    this.#cursor = view.nextOffset;
    return view;
  }

  /** Lines from `offset` (clamped to what is kept), at most `limit`; the cursor stays. */
  log(offset?: number, limit?: number): ProgramLog {
    const last = this.#base + this.#lines.length;
    const start = Math.min(Math.max(offset ?? this.#base, this.#base), last);
    return this.#view(start, limit);
  }

  /** What each stream wrote (cut at {@link MAX_STREAM_CHARS}, with a note when it was). */
  streams(): { stdout: string; stderr: string } {
    const note = (s: "stdout" | "stderr") =>
      this.#cut[s]
        ? `${this.#streams[s]}\n[${s} cut at ${MAX_STREAM_CHARS} characters]\n`
        : this.#streams[s];
    return { stdout: note("stdout"), stderr: note("stderr") };
  }
}
