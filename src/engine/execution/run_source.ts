/**
 * What a pass runs, by the execution's language: TypeScript is prepared as ever (packages,
 * transpile, a session's carried declarations); Python goes to the guest as written, for its
 * Python runner. The stored row keeps the language (`policy.language`, absent for TypeScript),
 * so a replay, resume or restart runs the code in the language it was admitted in.
 *
 * @module
 */
import type { ExecutionRow } from "../../store/executions.ts";
import type { SandboxPolicy } from "../../sandbox/policy.ts";
import { sessionSource } from "../sessions/source.ts";
import type { SessionUse } from "../sessions/runs.ts";
import { type PreparedSource, prepareSource } from "../source/source.ts";
import type { Limits } from "./limits.ts";
import type { EngineParts } from "./parts.ts";
import { workspaceOf } from "./envelope.ts";

/** The row's language when it is not TypeScript. */
export function rowLanguage(row: ExecutionRow): "python" | "bash" | undefined {
  const language = row.policy.language;
  return language === "python" || language === "bash" ? language : undefined;
}

/** The row's code, ready for the guest (throws a typed error for code that cannot run). */
export async function runSource(
  parts: Pick<EngineParts, "prepare">,
  row: ExecutionRow,
  session: SessionUse | undefined,
): Promise<PreparedSource> {
  const language = rowLanguage(row);
  if (language) {
    return { form: "script", module: row.code, lineOffset: 0, language };
  }
  let source = parts.prepare ? await parts.prepare(row.code) : prepareSource(row.code);
  if (session) {
    source = sessionSource(source);
    session.declared = (source as ReturnType<typeof sessionSource>).declared;
  }
  return source;
}

/** The sandbox policy a pass of `row` runs under. */
export function runPolicy(row: ExecutionRow, limits: Limits): SandboxPolicy {
  const workspace = workspaceOf(row);
  const language = rowLanguage(row);
  return {
    heapMiB: limits.heapMiB,
    netAllow: (row.policy.net as string[]) ?? [],
    ...(workspace ? { workspaceDir: workspace.dir } : {}),
    ...(language ? { language } : {}),
  };
}
