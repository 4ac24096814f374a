/**
 * Where the sandbox guest comes from. Children run with `--no-remote`, so
 * the guest entry must be a local file. From a local checkout it is; when
 * Cordon itself was loaded over HTTPS (from JSR), the guest's few modules
 * are fetched once and written to a local folder named by their content
 * hash, and children run that copy.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CordonError } from "../errors.ts";
import { sha256Hex as sha256 } from "../hash.ts";

/**
 * The guest's module graph, relative to `src/`. A test compares it with what
 * `deno info` reports, so a new import in the guest cannot be forgotten here.
 */
export const GUEST_MODULES: readonly string[] = [
  "sandbox/guest/entry.ts",
  "sandbox/guest/conceal.ts",
  "sandbox/guest/globals.ts",
  "sandbox/guest/caplets.ts",
  "sandbox/guest/tool_errors.ts",
  "sandbox/guest/permissions.ts",
  "sandbox/guest/program.ts",
  "sandbox/guest/python.ts",
  "sandbox/guest/python_boot.ts",
  "sandbox/guest/python_output.ts",
  "sandbox/guest/bash.ts",
  "sandbox/guest/bash_fs.ts",
  "sandbox/guest/bash_run.ts",
  "sandbox/protocol.ts",
  "rpc/codec.ts",
  "rpc/codec_plain.ts",
  "rpc/framing.ts",
  "rpc/line_splitter.ts",
  "rpc/messages.ts",
  "rpc/peer.ts",
  "rpc/peer_answers.ts",
  "rpc/peer_options.ts",
  "rpc/peer_pending.ts",
  "rpc/peer_slices.ts",
  "rpc/predecoded.ts",
  "rpc/sync_writer.ts",
  "errors.ts",
  "loop.ts",
  "bytes.ts",
];

const ENTRY = GUEST_MODULES[0];

/**
 * The local path of the guest entry: in place for a local copy of Cordon (`src` is a `file:`
 * URL), else a copy fetched from `src` into `cacheDir`.
 */
export async function guestEntry(
  cacheDir: string,
  src: URL = new URL("../", import.meta.url),
): Promise<string> {
  if (src.protocol === "file:") return fileURLToPath(new URL(ENTRY, src));
  const sources: string[] = [];
  for (const m of GUEST_MODULES) {
    const url = new URL(m, src);
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    } catch (err) {
      throw new CordonError(
        "spawn_failed",
        `Cannot fetch Cordon's sandbox guest module ${url.href}: ${(err as Error).message}`,
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new CordonError(
        "spawn_failed",
        `Cannot fetch Cordon's sandbox guest module ${url.href}: HTTP ${res.status}`,
      );
    }
    sources.push(await res.text());
  }
  const hash = (await sha256(sources.join("\u0000"))).slice(0, 16);
  const dir = join(cacheDir, `guest-${hash}`);
  const entry = join(dir, ENTRY);
  try {
    await Deno.stat(entry);
    return entry;
  } catch {
    // Not written yet.
  }
  for (let i = 0; i < GUEST_MODULES.length; i++) {
    const path = join(dir, GUEST_MODULES[i]);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    // Written aside and renamed, so a concurrent runtime never runs half a file.
    const temp = `${path}.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(temp, sources[i]);
    await Deno.rename(temp, path);
  }
  return entry;
}
