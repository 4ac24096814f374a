/**
 * Python's standard output and error as console lines. Pyodide hands over
 * bytes as Python flushes them; complete lines become console lines as they
 * arrive, and a partial one waits until its line ends, until the program
 * asks for input (a prompt such as `input("Name: ")` shows before the
 * program waits), or until the run ends.
 *
 * @module
 */
import type { LogLevel } from "../protocol.ts";

/** What Pyodide's `setStdout({ write })` takes. */
export interface RawWriter {
  write(buffer: Uint8Array): number;
}

/** The two streams of one Python child. */
export class PythonOutput {
  readonly #partial: Record<"log" | "error", string> = { log: "", error: "" };
  readonly #decoders = { log: new TextDecoder(), error: new TextDecoder() };

  constructor(readonly log: (level: LogLevel, message: string) => void) {}

  /** The writer of one stream (`log` for stdout, `error` for stderr). */
  writer(level: "log" | "error"): RawWriter {
    return {
      write: (buffer) => {
        const text = this.#partial[level] + this.#decoders[level].decode(buffer, { stream: true });
        const lines = text.split("\n");
        this.#partial[level] = lines.pop()!;
        for (const line of lines) this.log(level, line);
        return buffer.length;
      },
    };
  }

  /** Emits what waits of an unfinished line, on both streams. */
  flush(): void {
    for (const level of ["log", "error"] as const) {
      const rest = this.#partial[level];
      this.#partial[level] = "";
      if (rest !== "") this.log(level, rest);
    }
  }
}
