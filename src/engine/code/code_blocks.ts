/**
 * The code blocks of a model's answer: Markdown fences, or blocks between
 * custom markers (CodeAct-style `<execute>`), pulled out in order with the
 * language each names, for `executeCode` to run.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";

/** One code block of a model's answer. */
export interface CodeBlock {
  /** The language named after the opening fence, lower-cased (`ts`, `python`); `""` if none. */
  language: string;
  /** The code between the fences, without them, lines joined by `\n`. */
  code: string;
}

/** Options for {@link extractCodeBlocks}. */
export interface ExtractCodeBlocksOptions {
  /**
   * A marker that opens a block instead of a Markdown fence (CodeAct-style `<execute>`). Blocks
   * between custom markers have no language of their own: they get `language`.
   */
  start?: string;
  /** The marker that closes a block opened by `start`. */
  end?: string;
  /** The language of custom-marker blocks and of fences that name none (default `""`). */
  language?: string;
}

/** A fence line: up to any indentation, 3+ backticks or tildes, then an info string. */
const FENCE = /^([ \t]*)(`{3,}|~{3,})(.*)$/;

function fencedBlocks(lines: string[], fallback: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = FENCE.exec(lines[i++]);
    // A backtick fence's info string has no backtick (CommonMark): "```a```" is inline code.
    if (!open || (open[2][0] === "`" && open[3].includes("`"))) continue;
    const [, indent, fence, info] = open;
    const close = new RegExp(`^[ \\t]*${fence[0]}{${fence.length},}[ \\t]*$`);
    const body: string[] = [];
    let closed = false;
    for (; i < lines.length; i++) {
      if (close.test(lines[i])) {
        closed = true;
        i++;
        break;
      }
      // Blocks nested in list items are indented; their code is not.
      body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i].trimStart());
    }
    // An unterminated block is an answer cut short: its code is incomplete, so it is not run.
    if (!closed) break;
    const language = /^[^\s{,]*/.exec(info.trim())![0].toLowerCase() || fallback;
    blocks.push({ language, code: body.join("\n") });
  }
  return blocks;
}

function markedBlocks(text: string, start: string, end: string, language: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf(start, from);
    if (open === -1) break;
    const close = text.indexOf(end, open + start.length);
    if (close === -1) break;
    const code = text.slice(open + start.length, close).replace(/^[ \t]*\n/, "").replace(
      /\n[ \t]*$/,
      "",
    );
    blocks.push({ language, code });
    from = close + end.length;
  }
  return blocks;
}

/**
 * The code blocks of a model's answer, in order: Markdown fences (```` ``` ```` or `~~~`, three
 * or more, closed by a fence of the same kind at least as long, so code may hold shorter runs
 * of backticks), or blocks between custom `start`/`end` markers. The language is the first word
 * of the info string (`ts title="x"` is `ts`). CRLF line ends are read as LF; a block left
 * unterminated is dropped.
 *
 * @example
 * ```ts
 * import { extractCodeBlocks } from "./code_blocks.ts";
 * const answer = "Sum:\n```ts\nreturn 1 + 1;\n```\nThen:\n<execute>return 2</execute>";
 * console.assert(extractCodeBlocks(answer)[0].code === "return 1 + 1;");
 * const marked = extractCodeBlocks(answer, { start: "<execute>", end: "</execute>", language: "js" });
 * console.assert(marked[0].code === "return 2" && marked[0].language === "js");
 * ```
 */
export function extractCodeBlocks(
  text: string,
  options: ExtractCodeBlocksOptions = {},
): CodeBlock[] {
  const normalized = String(text).replace(/\r\n?/g, "\n");
  const language = options.language ?? "";
  if (options.start === undefined && options.end === undefined) {
    return fencedBlocks(normalized.split("\n"), language);
  }
  if (!options.start || !options.end) {
    throw new CordonError("invalid_request", "Custom code block markers need both start and end");
  }
  return markedBlocks(normalized, options.start, options.end, language);
}
