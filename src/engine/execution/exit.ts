/**
 * What killed a child that never answered, as a typed error.
 *
 * @module
 */
import { type ErrorInfo, errorInfo } from "../../errors.ts";
import { encodeValue } from "../../rpc/codec.ts";
import type { ChildExit } from "../../sandbox/child.ts";
import { neutralPaths } from "../../sandbox/guest/conceal.ts";

const encoder = new TextEncoder();

function homeDir(): string | undefined {
  try {
    const home = Deno.env.get("HOME");
    return home && home.length > 1 ? home : undefined;
  } catch {
    // No env permission on the host: nothing to hide that it could read.
    return undefined;
  }
}

/**
 * `text` from a child (its stderr, its error messages) with the host's paths hidden: the
 * guest's modules named `cordon:guest/…` as inside the child, the home directory `~`.
 */
export function concealPaths(text: string): string {
  const out = neutralPaths(text);
  const home = homeDir();
  if (!home || !out.includes(home)) return out;
  // The directory itself, not a longer name that starts the same (`/root` in `/rooted`).
  const escaped = home.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return out.replace(new RegExp(`${escaped}(?![\\w.-])`, "g"), "~");
}

/** Bytes of a value in its wire encoding. */
export function encodedBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(encodeValue(value)) ?? "").length;
}

/** Names what ended a child that did not answer its run. */
export function classifyExit(exit: ChildExit, heapMiB: number, memoryMiB: number): ErrorInfo {
  if (exit.killedFor) return exit.killedFor;
  if (exit.fault) return exit.fault;
  const tail = concealPaths(exit.stderr.slice(-2048));
  if (exit.oomKilled) {
    return errorInfo(
      "sandbox_memory",
      `The script used more than its ${memoryMiB} MiB memory limit and was killed`,
      {
        guard: "cgroup",
        memoryMiB,
      },
    );
  }
  if (/out of memory|heap limit|allocation failed/i.test(exit.stderr)) {
    return errorInfo(
      "sandbox_memory",
      `The script ran out of its ${heapMiB} MiB heap and was killed`,
      {
        guard: "heap",
        heapMiB,
      },
    );
  }
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  return errorInfo("sandbox_crashed", `The sandbox ended (${how}) before the script finished`, {
    exitCode: exit.code,
    signal: exit.signal,
    ...(tail ? { stderr: tail } : {}),
  });
}
