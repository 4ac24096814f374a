/**
 * Hides where the host keeps things from the script. Without it a script reads the host's
 * paths (its checkout of Cordon, the Deno binary under a home directory) from
 * `Deno.execPath()`, `Deno.mainModule` and every stack trace that passes through the guest.
 * {@link concealHost} runs first in the child, before any user code: the two properties
 * become fixed neutral values, and stack traces are formatted by a hook the script cannot
 * replace, naming the guest's modules `cordon:guest/…`. A script still sees the paths it is
 * given on purpose (`workspace.dir`) and the sandbox's empty working directory.
 *
 * @module
 */

/** What stands for the directory the guest's modules were loaded from. */
export const GUEST_NAME = "cordon:guest/";

/** What `Deno.execPath()` answers in the sandbox. */
export const NEUTRAL_EXEC_PATH = "deno";

/**
 * Longest module name a stack frame shows; a `data:` module's name is its whole source, which
 * would put the script's code into every frame. Deno's own traces cut them likewise.
 */
const MAX_FRAME_NAME = 64;

// The guest lives at src/sandbox/guest/; its modules are all under src/.
const ROOT_URL = new URL("../../", import.meta.url).href;
const ROOT_PATH = decodeURIComponent(new URL(ROOT_URL).pathname);

/** More host locations to hide (an interpreter's files), with the names that stand for them. */
const hidden: [string, string][] = [];

/** Hides `path` (and its `file:` URL) behind `name` in stack traces from now on. */
export function concealPath(path: string, name: string): void {
  const url = new URL(`file://${path}`).href;
  if (hidden.some(([from, to]) => from === path && to === name)) return;
  hidden.push([url, name], [path, name]);
}

/** `text` with the guest's own location named {@link GUEST_NAME}, and hidden paths named. */
export function neutralPaths(text: string): string {
  let out = text.replaceAll(ROOT_URL, GUEST_NAME).replaceAll(ROOT_PATH, GUEST_NAME);
  for (const [from, to] of hidden) out = out.replaceAll(from, to);
  return out;
}

function frameName(file: string): string {
  if (file.startsWith("data:") && file.length > MAX_FRAME_NAME) {
    return `${file.slice(0, MAX_FRAME_NAME - 26)}......${file.slice(-20)}`;
  }
  return neutralPaths(file);
}

interface CallSite {
  getFileName(): string | undefined | null;
  toString(): string;
}

function formatStack(err: unknown, sites: CallSite[]): string {
  let header = "Error";
  try {
    // As V8 writes it: `name: message`, or the name alone.
    const { name, message } = err as { name?: unknown; message?: unknown };
    header = `${name ?? "Error"}${message ? `: ${message}` : ""}`;
  } catch {
    // A throwing getter: the plain header.
  }
  const lines = [neutralPaths(header)];
  for (const site of sites) {
    let line = String(site);
    const file = site.getFileName();
    if (file) line = line.split(file).join(frameName(file));
    lines.push(`    at ${neutralPaths(line)}`);
  }
  return lines.join("\n");
}

/**
 * Fixes `Deno.execPath` and `Deno.mainModule`, and makes every Worker the script starts run
 * this same prelude before its own module: a worker is a fresh isolate with the host's values
 * again. Serialized into each worker's bootstrap, so it may use nothing from outside itself.
 */
function prelude(source: string, execPath: string, mainModule: string | undefined): void {
  const fixed = { writable: false, configurable: false, enumerable: true };
  Object.defineProperty(Deno, "execPath", { ...fixed, value: () => execPath });
  Object.defineProperty(Deno, "mainModule", { ...fixed, value: mainModule });
  const Native = globalThis.Worker;
  if (typeof Native !== "function") return;
  const boot = (url: string | URL) =>
    "data:text/javascript," + encodeURIComponent(
      `(${source})(${JSON.stringify(source)}, ${JSON.stringify(execPath)}, undefined);\n` +
        `await import(${JSON.stringify(String(url))});`,
    );
  class Worker extends Native {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(boot(url), options);
    }
  }
  Object.defineProperty(globalThis, "Worker", {
    value: Worker,
    writable: false,
    configurable: false,
  });
}

/**
 * Fixes `Deno.execPath`, `Deno.mainModule`, `Error.prepareStackTrace` and `Worker` for the rest
 * of the child's life (not writable, not configurable), so user code can neither read the
 * host's paths through them nor install a stack hook that sees the raw call sites.
 */
export function concealHost(): void {
  prelude(String(prelude), NEUTRAL_EXEC_PATH, `${GUEST_NAME}sandbox/guest/entry.ts`);
  // node:process takes `process.argv0` from Deno's bootstrap arguments when first imported.
  const internal =
    (Deno as unknown as Record<symbol, { __nodeBootstrapArgs?: { argv0?: string } }>)[
      (Deno as unknown as { internal: symbol }).internal
    ];
  if (internal?.__nodeBootstrapArgs) internal.__nodeBootstrapArgs.argv0 = NEUTRAL_EXEC_PATH;
  Object.defineProperty(Error, "prepareStackTrace", {
    value: formatStack,
    writable: false,
    configurable: false,
    enumerable: true,
  });
}
