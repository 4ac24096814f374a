/**
 * How a pass's outcome is judged once its child answered or died: a reply
 * the child claims is checked against what the host told it, a result is
 * held to its size limit, and a replay that skipped calls it made before
 * fails as diverged.
 *
 * @module
 */
import { CHILD_CODES, type ErrorCode, type ErrorInfo, errorInfo } from "../../errors.ts";
import type { CallEntry } from "../../store/calls.ts";
import { encodedJson } from "../../rpc/codec_json.ts";
import { concealPaths } from "./exit.ts";
import type { Outcome } from "./pass_options.ts";

/**
 * The child is untrusted: a script can write any frame to stdout, so a run
 * reply may carry a code the host owns (a limit, a kill, a person's
 * rejection) only when the host raised that code to the script in this run;
 * anything else is the script's own claim and is reported as such.
 */
export function fromChild(reply: ErrorInfo, told: ReadonlySet<ErrorCode>): ErrorInfo {
  const info = { ...reply, message: concealPaths(reply.message) };
  if (CHILD_CODES.has(info.code) || told.has(info.code)) return info;
  return errorInfo(
    "script_error",
    `The script reported "${info.code}" itself (${info.message}); the host raised no such failure`,
    { claimed: info.code },
  );
}

/**
 * The value as the outcome, or `result_too_large` past `max` encoded bytes. Past `inline` bytes
 * the outcome also carries the value's JSON text and its UTF-8 bytes, to be stored instead of
 * returned. A big value is encoded across turns of the event loop (`codec_json.ts`), and its
 * text is turned into bytes once.
 */
export async function checkResult(
  value: unknown,
  max: number,
  inline = Infinity,
): Promise<Outcome> {
  const json = await encodedJson(value);
  // Each UTF-16 unit is 1 to 3 UTF-8 bytes: most texts are settled without encoding them.
  const data = json.length * 3 <= Math.min(max, inline) ? undefined : UTF8.encode(json);
  const bytes = data?.byteLength ?? json.length;
  if (bytes > max) {
    return {
      ok: false,
      error: errorInfo(
        "result_too_large",
        `The result is ${bytes} bytes, over the ${max}-byte limit; return a smaller value (or store it with workspace outputs)`,
        { bytes, limit: max },
      ),
    };
  }
  if (bytes <= inline) return { ok: true, value };
  return { ok: true, value, json, ...(data ? { data } : {}) };
}

const UTF8 = new TextEncoder();

/** The `replay_divergence` error for applied calls a replay no longer made. */
export function divergence(skipped: readonly CallEntry[]): ErrorInfo {
  return errorInfo(
    "replay_divergence",
    `On replay the script no longer made ${skipped.length} call(s) it made before (first: ${
      skipped[0].connector
    }.${skipped[0].tool}, entry ${skipped[0].seq})`,
    { seqs: skipped.map((e) => e.seq) },
  );
}
