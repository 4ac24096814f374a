/**
 * Sandbox children that run bash blocks, for tests: Cordon's own flags (`childArgs`) plus read
 * access to the just-bash bundle, as the sandbox gives them, around a test entry
 * (tests/fixtures/bash_entry.ts) that runs each block with `runBash` and answers one JSON line
 * per block.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bashBundle } from "../../src/engine/languages/mod.ts";
import { childArgs } from "../../src/sandbox/flags.ts";
import { sandboxCommand } from "../../src/sandbox/child_launch.ts";
import { childEnvironment } from "./sandbox_children.ts";

const ENTRY = fileURLToPath(new URL("../fixtures/bash_entry.ts", import.meta.url));
/** The bundle, in the cache folder runtimes use (made once per disk). */
export const BUNDLE = await bashBundle(join(tmpdir(), "cordon"));

/** One block for the test entry. */
export interface Block {
  code?: string;
  file?: string;
  workDir?: string;
  args?: string[];
  env?: Record<string, string>;
  stdin?: string;
  limits?: Record<string, number>;
}

/** The test entry's answer for one block. */
export interface Answer {
  stdout: string;
  stderr: string;
  exitCode: number;
  ms: number;
  /** The child's V8 heap in use after the block. */
  heapMiB?: number;
  error?: { code: string; message: string };
}

/** What one child did. */
export interface ChildRun {
  answers: Answer[];
  /** From spawning the child to its first answer. */
  firstMs: number;
  status: Deno.CommandStatus;
  stderr: string;
}

/** Cordon's flags for a child, and read access to the one bundle file, as the sandbox gives it. */
export function bashChildArgs(workspaceDir: string | undefined, bundle: string): string[] {
  const args = childArgs({
    policy: { heapMiB: 128, netAllow: [], workspaceDir },
    guestEntry: ENTRY,
    runId: crypto.randomUUID(),
  });
  args.splice(args.length - 1, 0, `--allow-read=${bundle}`);
  return args;
}

/** Runs `blocks` in one new child; kills it (as the host's timeout does) after `killAfterMs`. */
export async function runChild(
  blocks: Block[],
  options: { workspace?: string; killAfterMs?: number; bundleUrl?: string } = {},
): Promise<ChildRun> {
  const env = await childEnvironment(ENTRY);
  const start = performance.now();
  const child = sandboxCommand(env, env.denoPath, bashChildArgs(options.workspace, BUNDLE)).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 60_000);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify({
    bundleUrl: options.bundleUrl ?? pathToFileURL(BUNDLE).href,
    cwd: options.workspace,
    blocks,
  })));
  await writer.close();
  const stderr = new Response(child.stderr).text();
  const answers: Answer[] = [];
  let firstMs = NaN;
  let buffered = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf("\n")) >= 0) {
      if (answers.length === 0) firstMs = performance.now() - start;
      answers.push(JSON.parse(buffered.slice(0, end)));
      buffered = buffered.slice(end + 1);
    }
  }
  const status = await child.status;
  clearTimeout(timer);
  return { answers, firstMs, status, stderr: await stderr };
}

/** A workspace two folders below `outer` (`outer/a/ws`), by its real path. */
export async function workspaceIn(outer: string): Promise<string> {
  const ws = join(outer, "a", "ws");
  await Deno.mkdir(ws, { recursive: true });
  return await Deno.realPath(ws);
}
