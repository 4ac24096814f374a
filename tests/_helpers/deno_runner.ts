/**
 * A real `ProgramRunner` for tests, built on `runtime.execute` in the
 * workspace: `cmd: "deno", args: [file, ...]` reads the file from the
 * workspace and runs its text as the execution's code (its `input` is
 * `{ args, env }`). Completed: exit code 0, or the number it returns;
 * failed: 1; stopped at its timeout: `timedOut`. Console lines are stdout
 * (`error`/`warn` lines are stderr).
 *
 * @module
 */
import { join } from "node:path";
import type { ProgramRunner, Runtime } from "../../mod.ts";

/** A runner that runs through the runtime `rt()` returns (late-bound: the runtime takes it). */
export function denoRunner(rt: () => Runtime): ProgramRunner & { runs: number } {
  const runner = {
    runs: 0,
    async runProgram(
      ws: { id: string; dir: string },
      spec: {
        cmd: string;
        args?: string[];
        env?: Record<string, string>;
        cwd?: string;
        timeoutMs?: number;
      },
    ) {
      runner.runs++;
      const started = performance.now();
      const [file, ...args] = spec.args ?? [];
      if (spec.cmd !== "deno" || !file) {
        return {
          stdout: "",
          stderr: `${spec.cmd}: not found`,
          exitCode: 127,
          durationMs: 0,
          timedOut: false,
        };
      }
      const code = await Deno.readTextFile(join(ws.dir, spec.cwd ?? "", file));
      const r = await rt().execute({
        code,
        input: { args, env: spec.env ?? {} },
        workspace: { id: ws.id },
        ...(spec.timeoutMs ? { timeoutMs: spec.timeoutMs } : {}),
      });
      const logs = (r as { logs?: { level: string; message: string }[] }).logs ?? [];
      const out = (err: boolean) =>
        logs.filter((l) => (l.level === "error" || l.level === "warn") === err)
          .map((l) => l.message + "\n").join("");
      const error = (r as { error?: { code: string; message: string } }).error;
      const result = (r as { result?: unknown }).result;
      return {
        stdout: out(false),
        stderr: out(true) + (error ? error.message : ""),
        exitCode: r.status === "completed" ? (typeof result === "number" ? result : 0) : 1,
        durationMs: performance.now() - started,
        timedOut: error?.code === "sandbox_timeout",
      };
    },
  };
  return runner;
}
