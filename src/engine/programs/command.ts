/**
 * What a program's `cmd` and `args` mean inside Cordon's sandbox: which
 * language runs, the code or the workspace file it runs, and the argument
 * vector it sees. Only interpreters Cordon has in its child are recognized
 * (Python through Pyodide, bash through its in-process interpreter,
 * TypeScript/JavaScript through Deno); anything else is refused before a
 * child starts, never run on the host.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";

/** The languages a program runs in. */
export type ProgramLanguage = "python" | "bash" | "typescript";

/** A program, resolved. */
export interface ResolvedCommand {
  /** The language, or `auto` for a workspace file named by itself: its `#!` line decides. */
  language: ProgramLanguage | "auto";
  /** Inline code (`-c`, or the script read from standard input) … */
  code?: string;
  /** … or a workspace file, relative to the working directory. */
  file?: string;
  /** What the program sees as its arguments after its own name. */
  args: string[];
  /** Whether the program's standard input was its code (then the program reads none). */
  stdinIsCode?: boolean;
}

const PYTHON = /^python(?:3(?:\.\d{1,2})?)?$/;
const SHELLS = new Set(["bash", "sh"]);
const JS = new Set(["deno", "node"]);
/** Interpreter flags that change nothing here (buffering, bytecode, site). */
const PYTHON_IGNORED_FLAGS = new Set(["-u", "-B", "-E", "-s", "-S", "-I", "-q"]);

function refuse(message: string, code: "not_supported" | "invalid_request" = "not_supported") {
  return new CordonError(code, message);
}

/** The language of a file from its extension, if it says. */
export function languageOfFile(file: string): ProgramLanguage | undefined {
  const ext = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase();
  if (ext === "py") return "python";
  if (ext === "sh" || ext === "bash") return "bash";
  if (ext === "ts" || ext === "mts" || ext === "js" || ext === "mjs") return "typescript";
  return undefined;
}

/** The language a `#!` line names (`#!/usr/bin/env python3`, `#!/bin/sh`), if any. */
export function languageOfShebang(text: string): ProgramLanguage | undefined {
  const first = /^#!([^\n]*)/.exec(text)?.[1]?.trim();
  if (!first) return undefined;
  const words = first.split(/\s+/);
  const name =
    (words[0].endsWith("/env") ? words.find((w, i) => i > 0 && !w.startsWith("-")) : words[0])
      ?.split("/").pop() ?? "";
  if (PYTHON.test(name)) return "python";
  if (SHELLS.has(name)) return "bash";
  if (JS.has(name)) return "typescript";
  return undefined;
}

function fromPython(args: string[]): ResolvedCommand {
  let i = 0;
  while (i < args.length && PYTHON_IGNORED_FLAGS.has(args[i])) i++;
  const first = args[i];
  if (first === "-c") {
    if (args[i + 1] === undefined) {
      throw refuse("python -c needs the code after it", "invalid_request");
    }
    return { language: "python", code: args[i + 1], args: args.slice(i + 2) };
  }
  if (first === "-m") {
    throw refuse("python -m is not offered: run a file of the workspace, or -c code");
  }
  if (first === undefined || first === "-") {
    return { language: "python", args: args.slice(i + 1), stdinIsCode: true };
  }
  if (first.startsWith("-")) throw refuse(`The python option ${first} is not offered`);
  return { language: "python", file: first, args: args.slice(i + 1) };
}

function fromShell(args: string[]): ResolvedCommand {
  const first = args[0];
  if (first === "-c") {
    if (args[1] === undefined) {
      throw refuse("bash -c needs the command after it", "invalid_request");
    }
    // As in bash: after the command, the next argument is $0 and the rest are $1…
    return { language: "bash", code: args[1], args: args.slice(3) };
  }
  if (first === undefined || first === "-s") {
    return { language: "bash", args: args.slice(1), stdinIsCode: true };
  }
  if (first.startsWith("-")) {
    throw refuse(`The bash option ${first} is not offered (use set -e in the script)`);
  }
  return { language: "bash", file: first, args: args.slice(1) };
}

function fromDeno(cmd: string, args: string[]): ResolvedCommand {
  let rest = args;
  if (cmd === "deno") {
    if (rest[0] !== "run") throw refuse("Only `deno run <file>` is offered");
    rest = rest.slice(1);
  }
  const flag = rest.find((a, i) =>
    a.startsWith("-") && rest.slice(0, i).every((b) => b.startsWith("-"))
  );
  if (flag) {
    throw refuse(`The ${cmd} option ${flag} is not offered: Cordon's sandbox decides permissions`);
  }
  if (rest[0] === undefined) throw refuse(`${cmd} needs a file to run`, "invalid_request");
  return { language: "typescript", file: rest[0], args: rest.slice(1) };
}

/**
 * Resolves `cmd` and `args`. Throws `not_supported` for a program Cordon cannot run in its
 * sandbox (another interpreter, a binary, an option it does not offer) and `invalid_request` for
 * a malformed one.
 */
export function resolveCommand(cmd: string, args: readonly string[] = []): ResolvedCommand {
  const name = cmd.trim();
  const bare = name.includes("/") && /^\/(?:usr\/)?(?:local\/)?bin\/[^/]+$/.test(name)
    ? name.split("/").pop()!
    : name;
  if (PYTHON.test(bare)) return fromPython([...args]);
  if (SHELLS.has(bare)) return fromShell([...args]);
  if (JS.has(bare)) return fromDeno(bare, [...args]);
  if (!bare.includes("/") && languageOfFile(bare) === undefined) {
    throw refuse(
      `${name}: command not found in Cordon's sandbox (it runs python3, bash, deno/node and workspace scripts)`,
    );
  }
  // A workspace file named by itself: its extension or its #! line says how it runs.
  return { language: languageOfFile(name) ?? "auto", file: name, args: [...args] };
}
