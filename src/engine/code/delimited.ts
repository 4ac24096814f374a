/**
 * The code blocks of a model's answer as trpc-agent-go's `codeexecutor`
 * documents them: {@link extractCodeBlock} with a {@link CodeBlockDelimiter},
 * and {@link buildBlockSpec}, which maps a block to the file and interpreter
 * a program run uses.
 *
 * The document's extraction is a regular expression, `(?s)START([^\n]*)\n(.*?)END`:
 * the language is the rest of the opening line (trimmed, case kept) and the
 * code runs from the next line up to the first `END` (its last newline kept).
 * Here it is a scan with `indexOf`, which finds the same blocks in time
 * linear in the input: a backtracking expression over a hostile answer with
 * many openings and no closing fence takes quadratic time.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { CodeBlock } from "./code_blocks.ts";
import { DEFAULT_EXEC_FILE_MODE, DEFAULT_SCRIPT_FILE_MODE } from "../workspaces/layout.ts";

/** The start and end markers of a code block (the document's `CodeBlockDelimiter`). */
export interface CodeBlockDelimiter {
  /** What opens a block; the rest of that line is the block's language. */
  start: string;
  /** What closes a block. */
  end: string;
}

/** The delimiter Cordon's executor answers with (`codeBlockDelimiter()`): Markdown fences. */
export const DEFAULT_CODE_BLOCK_DELIMITER: Readonly<CodeBlockDelimiter> = Object.freeze({
  start: "```",
  end: "```",
});

/** A delimiter longer than this is not a delimiter. */
const MAX_DELIMITER_LENGTH = 64;

function checkDelimiter(delimiter: CodeBlockDelimiter | undefined): CodeBlockDelimiter {
  const d = delimiter ?? DEFAULT_CODE_BLOCK_DELIMITER;
  for (const key of ["start", "end"] as const) {
    const v = (d as unknown as Record<string, unknown>)?.[key];
    if (typeof v !== "string" || v.length === 0 || v.length > MAX_DELIMITER_LENGTH) {
      throw new CordonError(
        "invalid_request",
        `The code block delimiter's ${key} must be a string of 1 to ${MAX_DELIMITER_LENGTH} characters`,
      );
    }
  }
  return { start: d.start, end: d.end };
}

/**
 * The document's `ExtractCodeBlock(input, delimiter)`: every block that opens with
 * `delimiter.start`, names its language on the rest of that line, and closes at the next
 * `delimiter.end`, in order. `code` keeps the text exactly (a final newline before the closing
 * fence stays); `language` is trimmed, its case kept. An opening with no closing after it ends
 * the scan. Without a delimiter, {@link DEFAULT_CODE_BLOCK_DELIMITER}.
 *
 * Cordon's richer {@link extractCodeBlocks} (CommonMark fences, indented blocks, `~~~`) is the
 * one its own executor uses; this one is for code written against the document.
 *
 * @example
 * ```ts
 * import { extractCodeBlock } from "./delimited.ts";
 * const fence = "`".repeat(3);
 * const answer = `${fence}python\nprint('Hello, World!')\n${fence}`;
 * const blocks = extractCodeBlock(answer, { start: fence, end: fence });
 * console.assert(blocks[0].language === "python" && blocks[0].code === "print('Hello, World!')\n");
 * ```
 */
export function extractCodeBlock(input: string, delimiter?: CodeBlockDelimiter): CodeBlock[] {
  const { start, end } = checkDelimiter(delimiter);
  const text = String(input ?? "");
  const blocks: CodeBlock[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf(start, from);
    if (open === -1) break;
    const newline = text.indexOf("\n", open + start.length);
    if (newline === -1) break;
    const close = text.indexOf(end, newline + 1);
    // No closing fence after this opening: no later opening can have one either.
    if (close === -1) break;
    blocks.push({
      language: text.slice(open + start.length, newline).trim(),
      code: text.slice(newline + 1, close),
    });
    from = close + end.length;
  }
  return blocks;
}

/** What {@link buildBlockSpec} maps a block to (the document's `BuildBlockSpec` results). */
export interface BlockSpec {
  /** The file the block is written to, relative to the inline source directory (`src/`). */
  file: string;
  /** Its POSIX mode: 0o644 for scripts, 0o755 for shell scripts. */
  mode: number;
  /** The interpreter a program run starts (`python3`, `bash`, `deno`). */
  cmd: string;
  /** Arguments before the file name. */
  args: string[];
}

/** Block languages and what they run as: the document's two, then Cordon's own. */
const BLOCK_KINDS: Record<string, { ext: string; mode: number; cmd: string }> = {
  python: { ext: "py", mode: DEFAULT_SCRIPT_FILE_MODE, cmd: "python3" },
  py: { ext: "py", mode: DEFAULT_SCRIPT_FILE_MODE, cmd: "python3" },
  python3: { ext: "py", mode: DEFAULT_SCRIPT_FILE_MODE, cmd: "python3" },
  bash: { ext: "sh", mode: DEFAULT_EXEC_FILE_MODE, cmd: "bash" },
  sh: { ext: "sh", mode: DEFAULT_EXEC_FILE_MODE, cmd: "bash" },
  ts: { ext: "ts", mode: DEFAULT_SCRIPT_FILE_MODE, cmd: "deno" },
  typescript: { ext: "ts", mode: DEFAULT_SCRIPT_FILE_MODE, cmd: "deno" },
  js: { ext: "js", mode: DEFAULT_SCRIPT_FILE_MODE, cmd: "deno" },
  javascript: { ext: "js", mode: DEFAULT_SCRIPT_FILE_MODE, cmd: "deno" },
};

/**
 * The document's `BuildBlockSpec(idx, block)`: `python`/`py`/`python3` → `code_<idx>.py` run by
 * `python3`, `bash`/`sh` → `code_<idx>.sh` (0o755) run by `bash`; Cordon adds `ts`/`typescript`
 * and `js`/`javascript` → `code_<idx>.ts`/`.js` run by `deno run`. The language is trimmed and
 * lower-cased; any other throws `unsupported_language`.
 */
export function buildBlockSpec(idx: number, block: CodeBlock): BlockSpec {
  if (!Number.isSafeInteger(idx) || idx < 0) {
    throw new CordonError("invalid_request", "A block index is a whole number from 0");
  }
  const language = String(block?.language ?? "").trim().toLowerCase();
  const kind = Object.hasOwn(BLOCK_KINDS, language) ? BLOCK_KINDS[language] : undefined;
  if (!kind) {
    throw new CordonError("unsupported_language", `unsupported language: ${block?.language}`, {
      details: { language, supported: Object.keys(BLOCK_KINDS) },
    });
  }
  // `deno run <file>`: the document's two take the file as their only argument.
  const args = kind.cmd === "deno" ? ["run"] : [];
  return { file: `code_${idx}.${kind.ext}`, mode: kind.mode, cmd: kind.cmd, args };
}
