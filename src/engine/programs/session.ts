/**
 * One interactive program: a Cordon execution whose console lines become
 * the program's stdout and stderr as they arrive, whose standard input is
 * fed by `write`, and whose end is its exit status. Every method may be
 * called at any time and in any order (the document asks sessions to be
 * safe for concurrent use): state changes happen in one place, `#exit`.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { ProgramOutput } from "./output.ts";
import {
  PROGRAM_STATUS_EXITED,
  PROGRAM_STATUS_RUNNING,
  type ProgramLog,
  type ProgramPoll,
  type ProgramSession,
  type ProgramState,
  type RunResult,
} from "./types.ts";

/** What a session drives: its execution's input and its end. */
export interface SessionControl {
  /** Sends standard input to the running program (`eof` closes it); false once it ended. */
  stdin(executionId: string, data: string, eof: boolean): boolean;
  /** Stops the execution now; false while it has no child yet (or no longer). */
  stop(executionId: string): boolean;
}

/** How a program's execution ended, as the runner reads it. */
export interface ProgramEnd {
  exitCode: number;
  timedOut: boolean;
  /** A message for stderr when the end was not the program's own (an uncaught error, a limit). */
  note?: string;
  /** The workspace it ran in, when that workspace was kept. */
  workspaceId?: string;
}

/** A started program. */
export class LiveProgram implements ProgramSession {
  readonly output: ProgramOutput = new ProgramOutput();
  readonly done: Promise<RunResult>;
  #executionId = "";
  #result: RunResult | undefined;
  #resolve!: (r: RunResult) => void;
  #started = performance.now();
  #closed = false;
  #killed = false;
  #settled = false;
  #pendingInput: [string, boolean][] = [];

  constructor(readonly id: string, readonly control: SessionControl) {
    this.done = new Promise((resolve) => this.#resolve = resolve);
  }

  get executionId(): string {
    return this.#executionId;
  }

  /** The execution started: input written before it goes out once its child runs. */
  bind(executionId: string): void {
    this.#executionId = executionId;
    this.#deliver();
    if (this.#killed) this.#stop();
  }

  /** Stops the execution, trying again until its child runs (or the execution has ended). */
  #stop(): void {
    if (this.#settled || this.#executionId === "") return;
    if (!this.control.stop(this.#executionId)) setTimeout(() => this.#stop(), 20);
  }

  /** The execution has ended (the runner says so once its promise settles). */
  settled(): void {
    this.#settled = true;
  }

  /**
   * Sends held input in order. Between the execution's start and its child's run the host has
   * nowhere to send it yet: it stays held and is tried again shortly.
   */
  #deliver(): void {
    while (this.#pendingInput.length > 0 && !this.#result) {
      const [data, eof] = this.#pendingInput[0];
      if (!this.control.stdin(this.#executionId, data, eof)) {
        setTimeout(() => this.#deliver(), 20);
        return;
      }
      this.#pendingInput.shift();
    }
  }

  /** The execution ended. */
  exit(end: ProgramEnd): void {
    if (this.#result) return;
    if (end.note) {
      this.output.append(end.note.endsWith("\n") ? end.note : end.note + "\n", "stderr");
    }
    this.output.finish();
    this.#result = {
      ...this.output.streams(),
      exitCode: end.exitCode,
      durationMs: Math.round(performance.now() - this.#started),
      timedOut: end.timedOut,
      executionId: this.#executionId,
      ...(end.workspaceId ? { workspaceId: end.workspaceId } : {}),
    };
    this.#resolve(this.#result);
  }

  poll(limit?: number): ProgramPoll {
    const view = this.output.poll(limit);
    return this.#result
      ? { status: PROGRAM_STATUS_EXITED, ...view, exitCode: this.#result.exitCode }
      : { status: PROGRAM_STATUS_RUNNING, ...view };
  }

  log(offset?: number, limit?: number): ProgramLog {
    return this.output.log(offset, limit);
  }

  write(data: string, newline = false): Promise<void> {
    if (typeof data !== "string") {
      return Promise.reject(new CordonError("invalid_request", "Program input is a string"));
    }
    if (data === "" && !newline) return Promise.resolve();
    if (this.#result || this.#closed) {
      return Promise.reject(new CordonError("invalid_state", "The program is not running"));
    }
    this.#pendingInput.push([newline ? data + "\n" : data, false]);
    if (this.#executionId !== "" && this.#pendingInput.length === 1) this.#deliver();
    return Promise.resolve();
  }

  /**
   * Stops the program. A sandboxed program holds nothing outside its workspace to clean up, so
   * it is stopped at once (one still starting is stopped as its child comes up). Waits up to
   * `graceMs` for its end to be recorded; past that the session reports exit -1 anyway.
   */
  async kill(graceMs = 2_000): Promise<void> {
    if (this.#result) return;
    this.#killed = true;
    this.#stop();
    const wait = Math.min(Math.max(Number(graceMs) || 0, 0), 60_000);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.done,
      new Promise((resolve) => timer = setTimeout(resolve, wait)),
    ]).finally(() => clearTimeout(timer));
    this.exit({ exitCode: -1, timedOut: false, note: "The program was killed" });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (!this.#result) await this.kill(0);
  }

  state(): ProgramState {
    return this.#result
      ? { status: PROGRAM_STATUS_EXITED, exitCode: this.#result.exitCode }
      : { status: PROGRAM_STATUS_RUNNING };
  }

  result(): RunResult | undefined {
    return this.#result;
  }
}
