/**
 * The bootstrap of the executor document: files, then commands, in
 * declaration order, each fingerprinted and recorded as a PreparedRecord in
 * metadata.json. A step is skipped when its fingerprint is unchanged and its
 * sentinel holds (its file, its marker, its observed paths); it runs again
 * when a sentinel disappeared. An `optional` step that fails is a warning.
 *
 * @module
 */
import { join } from "node:path";
import type { Context } from "@opentelemetry/api";
import { CordonError } from "../../errors.ts";
import { sha256Hex } from "../../hash.ts";
import { bad, insidePath } from "./request.ts";
import { stageInputs } from "./inputs.ts";
import { DEFAULT_SCRIPT_FILE_MODE } from "./layout.ts";
import { saveMetadata, type WorkspaceMetadata } from "./metadata.ts";
import {
  ATTR_CMD,
  ATTR_COUNT,
  ATTR_CWD,
  ATTR_EXIT_CODE,
  ATTR_TIMED_OUT,
  ATTR_TO,
} from "./tracing.ts";
import { inSpan, SPAN_WORKSPACE_RUN, SPAN_WORKSPACE_STAGE_FILES } from "./tracing.ts";
import type {
  WorkspaceBootstrapSpec,
  WorkspaceCommand,
  WorkspaceFile,
  WorkspaceHost,
  WorkspaceRef,
} from "./types.ts";

/** Bootstrap steps one request may declare. */
export const MAX_BOOTSTRAP_STEPS = 100;
/** The most of one fingerprint input hashed (past it, its size and first bytes count). */
const MAX_FINGERPRINT_INPUT_BYTES = 16 * 1024 * 1024;

/** True when `b` is a {@link WorkspaceBootstrapSpec} rather than the legacy path → text map. */
export function isBootstrapSpec(b: unknown): b is WorkspaceBootstrapSpec {
  if (b === null || typeof b !== "object" || Array.isArray(b)) return false;
  const o = b as Record<string, unknown>;
  return Array.isArray(o.files) || Array.isArray(o.commands);
}

/** Checks a bootstrap spec's shape before anything is written. */
export function checkBootstrapSpec(spec: WorkspaceBootstrapSpec): void {
  const files = spec.files ?? [];
  const commands = spec.commands ?? [];
  if (!Array.isArray(files) || !Array.isArray(commands)) {
    throw bad("bootstrap files and commands are lists");
  }
  if (files.length + commands.length > MAX_BOOTSTRAP_STEPS) {
    throw bad(`a bootstrap has at most ${MAX_BOOTSTRAP_STEPS} steps`);
  }
  for (const f of files) {
    if (f === null || typeof f !== "object") {
      throw bad("a bootstrap file is { target, content | input }");
    }
    insidePath(f.target);
    if (f.content === undefined && f.input === undefined) {
      throw bad(`bootstrap file ${f.target}: give content or input`);
    }
    if (f.content !== undefined && typeof f.content !== "string") throw bad("content is text");
  }
  for (const c of commands) {
    if (c === null || typeof c !== "object" || typeof c.cmd !== "string" || c.cmd === "") {
      throw bad("a bootstrap command is { cmd, args?, ... }");
    }
    if (
      c.args !== undefined && !(Array.isArray(c.args) && c.args.every((a) => typeof a === "string"))
    ) {
      throw bad(`command ${c.cmd}: args are strings`);
    }
    if (c.cwd !== undefined) insidePath(c.cwd);
    if (c.markerPath !== undefined) insidePath(c.markerPath);
    for (const p of [...(c.observedPaths ?? []), ...(c.fingerprintInputs ?? [])]) insidePath(p);
  }
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

/** The key a command is recorded under. */
export function commandKey(c: WorkspaceCommand): string {
  return c.key ?? `cmd:${[c.cmd, ...(c.args ?? [])].join(" ")}`;
}

/** A command's fingerprint: cmd, args, env, cwd, the fingerprint inputs' contents, the salt. */
export async function commandFingerprint(dir: string, c: WorkspaceCommand): Promise<string> {
  const inputs: string[] = [];
  for (const p of c.fingerprintInputs ?? []) {
    const path = join(dir, insidePath(p));
    const info = await Deno.lstat(path).catch(() => undefined);
    if (!info?.isFile) {
      inputs.push(`${p}:missing`);
      continue;
    }
    using file = await Deno.open(path, { read: true });
    const buffer = new Uint8Array(Math.min(info.size, MAX_FINGERPRINT_INPUT_BYTES));
    let filled = 0;
    while (filled < buffer.length) {
      const n = await file.read(buffer.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    inputs.push(`${p}:${info.size}:${await sha256Hex(buffer.subarray(0, filled))}`);
  }
  const env = Object.entries(c.env ?? {}).sort(([a], [b]) => a < b ? -1 : 1);
  return await sha256Hex(
    JSON.stringify([
      "command",
      c.cmd,
      c.args ?? [],
      env,
      c.cwd ?? "",
      inputs,
      c.fingerprintSalt ?? "",
    ]),
  );
}

async function fileFingerprint(f: WorkspaceFile): Promise<string> {
  const source = f.content !== undefined ? { content: f.content } : { input: f.input };
  return await sha256Hex(JSON.stringify(["file", f.target, f.mode ?? null, source]));
}

/** What a bootstrap did: steps run, steps skipped, warnings from optional steps. */
export interface BootstrapOutcome {
  ran: string[];
  skipped: string[];
  warnings: string[];
}

/**
 * Applies `spec` to the workspace `ws` (files, then commands), saving `md` after each step.
 * A required step's failure throws (a failed command: `script_error` naming its key).
 */
export async function applyBootstrap(
  ws: WorkspaceRef,
  spec: WorkspaceBootstrapSpec,
  host: WorkspaceHost,
  md: WorkspaceMetadata,
  ctx?: Context,
): Promise<BootstrapOutcome> {
  const outcome: BootstrapOutcome = { ran: [], skipped: [], warnings: [] };
  const prepared = (md.prepared ??= {});
  const step = async (
    key: string,
    kind: string,
    target: string | undefined,
    optional: boolean | undefined,
    fingerprint: string,
    holds: () => Promise<boolean>,
    apply: () => Promise<void>,
  ) => {
    if (prepared[key]?.fingerprint === fingerprint && await holds()) {
      outcome.skipped.push(key);
      return;
    }
    try {
      await apply();
    } catch (err) {
      if (!optional) throw err;
      outcome.warnings.push(`bootstrap ${kind} ${key}: ${(err as Error)?.message ?? String(err)}`);
      return;
    }
    const record = { key, kind, fingerprint, prepared_at: new Date().toISOString() };
    prepared[key] = target === undefined ? record : { ...record, target };
    outcome.ran.push(key);
    await saveMetadata(ws.dir, md);
  };
  for (const f of spec.files ?? []) {
    const target = insidePath(f.target);
    await step(
      f.key ?? `file:${target}`,
      "file",
      target,
      f.optional,
      await fileFingerprint(f),
      () => exists(join(ws.dir, target)),
      async () => {
        if (f.content === undefined) {
          await stageInputs(ws.dir, [{ ...f.input!, to: target }], host, md, ctx);
          return;
        }
        await inSpan(
          SPAN_WORKSPACE_STAGE_FILES,
          { [ATTR_COUNT]: 1, [ATTR_TO]: target },
          ctx,
          async () => {
            const path = join(ws.dir, target);
            await Deno.mkdir(join(path, ".."), { recursive: true });
            await Deno.writeTextFile(path, f.content!);
            await Deno.chmod(path, (f.mode ?? DEFAULT_SCRIPT_FILE_MODE) & 0o755);
          },
        );
      },
    );
  }
  for (const c of spec.commands ?? []) {
    const key = commandKey(c);
    const sentinels = [...(c.markerPath ? [c.markerPath] : []), ...(c.observedPaths ?? [])];
    await step(
      key,
      "command",
      c.markerPath,
      c.optional,
      await commandFingerprint(ws.dir, c),
      async () => {
        for (const p of sentinels) if (!(await exists(join(ws.dir, insidePath(p))))) return false;
        return true;
      },
      () => runCommand(ws, c, key, host, ctx),
    );
  }
  return outcome;
}

async function runCommand(
  ws: WorkspaceRef,
  c: WorkspaceCommand,
  key: string,
  host: WorkspaceHost,
  ctx?: Context,
): Promise<void> {
  const runner = host.runner;
  if (!runner) {
    throw new CordonError(
      "not_supported",
      `bootstrap command ${key}: this runtime has no program runner`,
    );
  }
  const attrs = { [ATTR_CMD]: c.cmd, [ATTR_CWD]: c.cwd ?? "" };
  const result = await inSpan(SPAN_WORKSPACE_RUN, attrs, ctx, async (span) => {
    const r = await runner.runProgram(ws, {
      cmd: c.cmd,
      ...(c.args ? { args: c.args } : {}),
      ...(c.env ? { env: c.env } : {}),
      ...(c.cwd ? { cwd: c.cwd } : {}),
      ...(c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}),
    });
    span.setAttribute(ATTR_EXIT_CODE, r.exitCode);
    span.setAttribute(ATTR_TIMED_OUT, r.timedOut);
    return r;
  });
  if (result.exitCode !== 0 || result.timedOut) {
    throw new CordonError(
      "script_error",
      `Bootstrap command ${key} ${
        result.timedOut ? "timed out" : `exited with code ${result.exitCode}`
      }: ${result.stderr.slice(-500)}`,
      { details: { key, exitCode: result.exitCode, timedOut: result.timedOut } },
    );
  }
  if (c.markerPath) {
    const marker = join(ws.dir, insidePath(c.markerPath));
    if (!(await exists(marker))) {
      await Deno.mkdir(join(marker, ".."), { recursive: true });
      await Deno.writeTextFile(marker, "");
    }
  }
}
