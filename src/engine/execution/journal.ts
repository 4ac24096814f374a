/**
 * The call journal of one pass: for every call the script makes, decide whether it is answered
 * from the durable log (replay), executed (its entry durable first, or behind for a read-only
 * tool), parked for a decision, or a divergence.
 *
 * Matching. A replayed call is matched to the earliest unconsumed entry with the same
 * connector, tool and canonical arguments, not to a bare `seq`: under `Promise.all` the order
 * in which calls reach the host can change between passes while the set of calls does not. A
 * call that matches nothing while an unconsumed entry of the same tool remains is a divergence
 * (its arguments changed); a call of a tool with nothing left to consume is new. When the pass
 * ends, any applied entry never consumed is a divergence too. A side effect in the log is never
 * executed again, except for tools that opt into `replay: "reexecute"`.
 *
 * @module
 */
import { type ErrorInfo, errorInfo, toErrorInfo } from "../../errors.ts";
import {
  appendStatement,
  type CallEntry,
  type CallStore,
  finishStatement,
  setStateStatement,
} from "../../store/calls.ts";
import { CommitQueue } from "./commit_queue.ts";
import type { CallPolicy, JournalDecision } from "./journal_types.ts";
import { canonicalJson, durableJson } from "./durable_value.ts";

export { canonicalJson, durableJson } from "./durable_value.ts";

export type { CallPolicy, JournalDecision } from "./journal_types.ts";

interface Recorded {
  entry: CallEntry;
  key: string;
  consumed: boolean;
}

/** The journal of one execution for one pass. */
export class CallJournal {
  readonly #executionId: string;
  readonly #maxBytes: number;
  readonly #recorded: Recorded[];
  #nextSeq: number;
  /** Entries this pass appended or touched, in seq order (for the result). */
  readonly touched = new Map<number, CallEntry>();
  readonly #writes: CommitQueue;

  readonly #onChange?: (entry: CallEntry) => void;

  constructor(
    store: CallStore,
    executionId: string,
    recorded: CallEntry[],
    maxDurableValueBytes: number,
    onChange?: (entry: CallEntry) => void,
  ) {
    this.#onChange = onChange;
    this.#writes = new CommitQueue(store);
    this.#executionId = executionId;
    this.#maxBytes = maxDurableValueBytes;
    this.#recorded = recorded.map((entry) => ({
      entry,
      key: `${entry.kind}|${entry.connector}|${entry.tool}|${canonicalJson(entry.args)}`,
      consumed: false,
    }));
    this.#nextSeq = recorded.reduce((m, e) => Math.max(m, e.seq), 0) + 1;
  }

  /** The earliest unconsumed recorded entry under `key`, now consumed; undefined if none. */
  #take(key: string): Recorded | undefined {
    const match = this.#recorded.find((r) => !r.consumed && r.key === key);
    if (match) match.consumed = true;
    return match;
  }

  /** True when an entry this pass appended or touched needed a decision (it may still wait). */
  get touchedDecisions(): boolean {
    return [...this.touched.values()].some((entry) => entry.needs !== undefined);
  }

  /** True when this pass replays an earlier history. */
  get replaying(): boolean {
    return this.#recorded.length > 0;
  }

  /** Decides what to do with a tool call; appends to the log before anything executes. */
  async begin(
    connector: string,
    tool: string,
    args: unknown,
    policy: CallPolicy,
  ): Promise<JournalDecision> {
    const argsJson = durableJson(
      args,
      this.#maxBytes,
      `The arguments of ${connector}.${tool}`,
      "invalid_input",
    );
    // A fresh run has nothing to match: no canonical form of the arguments to compute.
    const match = this.#recorded.length === 0
      ? undefined
      : this.#take(`tool|${connector}|${tool}|${canonicalJson(args)}`);
    if (match) return await this.#replay(match.entry, policy);
    const sameTool = this.#recorded.length === 0
      ? undefined
      : this.#recorded.find((r) =>
        !r.consumed && r.entry.kind === "tool" && r.entry.connector === connector &&
        r.entry.tool === tool
      );
    if (sameTool) {
      return {
        kind: "diverged",
        error: errorInfo(
          "replay_divergence",
          `On replay the script called ${connector}.${tool} with other arguments than before (entry ${sameTool.entry.seq}); code that pauses must make the same calls each time it runs`,
          { seq: sameTool.entry.seq, connector, tool },
        ),
      };
    }
    const seq = this.#nextSeq++;
    const entry: CallEntry = {
      executionId: this.#executionId,
      seq,
      connector,
      tool,
      args,
      kind: "tool",
      state: policy.needs ? "pending" : "executing",
      startedAt: Date.now(),
    };
    if (policy.needs) entry.needs = policy.needs;
    const append = appendStatement(entry, argsJson);
    if (policy.needs) {
      // Waits for a decision others read from the store: stored before the run goes on.
      await this.#writes.write(append);
    } else if (policy.readOnly) {
      // Nothing to guard: it runs at once, and its entry commits behind, before any later write
      // (so before any later call's effect). Lost in a crash, it is run again on replay.
      this.#writes.writeBehind(append).catch(() => {});
    } else {
      // Durable before anything executes (as the store allows: CommitQueue.writeAhead).
      await this.#writes.writeAhead(append);
    }
    this.touched.set(seq, entry);
    this.#onChange?.(entry);
    return policy.needs
      ? { kind: "pending", seq, needs: policy.needs, entry }
      : { kind: "execute", seq };
  }

  async #replay(entry: CallEntry, policy: CallPolicy): Promise<JournalDecision> {
    this.touched.set(entry.seq, entry);
    const seq = entry.seq;
    switch (entry.state) {
      case "applied":
        if (policy.reexecute) {
          await this.#writes.write(setStateStatement(this.#executionId, seq, "executing"));
          entry.state = "executing";
          return { kind: "execute", seq };
        }
        return { kind: "answer", seq, value: entry.result };
      case "error":
      case "rejected":
      case "reverted":
        return {
          kind: "fail",
          seq,
          error: entry.error ??
            errorInfo("tool_error", `${entry.connector}.${entry.tool} failed earlier`),
        };
      case "pending":
        if (entry.decision === "approved") {
          await this.#writes.write(setStateStatement(this.#executionId, seq, "executing"));
          entry.state = "executing";
          return { kind: "execute", seq };
        }
        return { kind: "pending", seq, needs: entry.needs ?? "approval", entry };
      case "executing":
        return {
          kind: "diverged",
          error: errorInfo(
            "interrupted",
            `${entry.connector}.${entry.tool} (entry ${seq}) was executing when its process stopped; its outcome is unknown, so it is not run again`,
            { seq },
          ),
        };
    }
  }

  /** Records a `codemode.step` value, or returns the one recorded before. */
  step(
    name: string,
    occurrence: number,
  ): { found: true; value: unknown } | { found: false; seq: number } {
    const match = this.#recorded.length === 0
      ? undefined
      : this.#take(`step|codemode|step|${canonicalJson({ name, occurrence })}`);
    if (match) {
      this.touched.set(match.entry.seq, match.entry);
      return { found: true, value: match.entry.result };
    }
    return { found: false, seq: this.#nextSeq++ };
  }

  /** Stores a step's value (applied at once: a step has no side effect). */
  async recordStep(seq: number, name: string, occurrence: number, value: unknown): Promise<void> {
    const args = { name, occurrence };
    const resultJson = durableJson(
      value,
      this.#maxBytes,
      `The value of step "${name}"`,
      "invalid_input",
    );
    const entry: CallEntry = {
      executionId: this.#executionId,
      seq,
      connector: "codemode",
      tool: "step",
      args,
      kind: "step",
      state: "applied",
      result: value,
      startedAt: Date.now(),
    };
    await this.#writes.write(
      appendStatement(entry, canonicalJson(args)),
      finishStatement(this.#executionId, seq, "applied", { resultJson }),
    );
    this.touched.set(seq, entry);
    this.#onChange?.(entry);
  }

  /** Records how an executed call ended. A result too large for the log fails the call. */
  finish(
    seq: number,
    outcome: { ok: true; value: unknown } | { ok: false; error: ErrorInfo },
  ): { ok: true; value: unknown } | { ok: false; error: ErrorInfo } {
    const entry = this.touched.get(seq);
    let final = outcome;
    let resultJson: string | undefined;
    if (outcome.ok) {
      try {
        resultJson = durableJson(
          outcome.value,
          this.#maxBytes,
          `The result of ${entry?.connector}.${entry?.tool}`,
        );
      } catch (err) {
        final = { ok: false, error: toErrorInfo(err, "invalid_output") };
      }
    }
    if (entry) {
      entry.state = final.ok ? "applied" : "error";
      entry.endedAt = Date.now();
      if (final.ok) entry.result = final.value;
      else entry.error = final.error;
      this.#onChange?.(entry);
    }
    // Written behind: the script goes on at once, and this commits with the next write (the
    // next call's entry, a pause, the end) or within a few ms, before anything later. A crash
    // before it commits leaves the entry `executing`, which is what a crash during the call
    // leaves too.
    this.#writes.writeBehind(
      finishStatement(
        this.#executionId,
        seq,
        final.ok ? "applied" : "error",
        final.ok ? { resultJson } : { error: final.error },
      ),
    ).catch(() => {});
    return final;
  }

  /** Marks an approved entry as executing, just before it runs. */
  async markExecuting(seq: number): Promise<void> {
    const entry = this.touched.get(seq);
    if (entry) {
      entry.state = "executing";
      this.#onChange?.(entry);
    }
    await this.#writes.write(setStateStatement(this.#executionId, seq, "executing"));
  }

  /** Entries of earlier passes this pass never reached. */
  unconsumedApplied(): CallEntry[] {
    return this.#recorded.filter((r) => !r.consumed && r.entry.state === "applied").map((r) =>
      r.entry
    );
  }

  /** Waits for every write this journal queued. */
  flush(): Promise<void> {
    return this.#writes.flush();
  }
}
