/**
 * `deno task serve` as a user starts it, from the repository (which has no config file), for the
 * tests that drive a real served child: up once its banner is out, stopped with a signal.
 */
import { fileURLToPath } from "node:url";

/** The repository's root, where `deno task` runs. */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A port free now on 127.0.0.1. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A served child: its stdout so far, and how to stop it. */
export interface Served {
  child: Deno.ChildProcess;
  /** Everything it printed to stdout so far (the banner first). */
  stdout(): string;
  /** Sends `signal` (SIGTERM) and waits for the end. */
  stop(
    signal?: Deno.Signal,
  ): Promise<{ status: Deno.CommandStatus; stdout: string; stderr: string }>;
}

/** Starts `deno task serve` with `env` and `args`, and waits up to a minute for its banner. */
export async function serve(env: Record<string, string>, args: string[] = []): Promise<Served> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "serve", ...args],
    cwd: ROOT,
    env: { ...env, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out: string[] = [];
  const pump = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) out.push(chunk);
  })();
  const errText = new Response(child.stderr).text();
  const deadline = Date.now() + 60_000;
  while (!out.join("").includes("try:")) {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`no banner: ${out.join("")} ${await errText}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    stdout: () => out.join(""),
    async stop(signal: Deno.Signal = "SIGTERM") {
      child.kill(signal);
      const status = await child.status;
      await pump;
      return { status, stdout: out.join(""), stderr: await errText };
    },
  };
}
