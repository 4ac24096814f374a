/**
 * What a model's code gets back from an MCP tool. A `CallToolResult` is
 * turned into a plain value, in this order:
 *
 * 1. `structuredContent` when the server sent it (the typed result);
 * 2. else, when `content` is one text block whose text parses as JSON, the
 *    parsed value (many servers print JSON as text);
 * 3. else, one text block: its text, as a string;
 * 4. else `{ content: [...] }` with the blocks as the server sent them
 *    (images, audio and resources stay blocks, several texts stay apart).
 *
 * `isError: true` throws instead: `tool_error` with the text of the
 * content, or the code the text names when the server wrapped a protocol
 * error in it (`MCP error -32602: Input validation error …` →
 * `invalid_input`), as the SDK's `McpServer` does for bad arguments.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import { codedFailure, type FailureContext, serverText } from "./errors.ts";
import type { CallToolResult } from "./sdk.ts";

type Content = CallToolResult["content"];

/** Text that may be JSON: starts like an object, array, string, number or literal. */
const JSON_START = /^\s*[{["\-0-9tfn]/;

/** The value of a successful result; throws a `CordonError` for `isError` results. */
export function toolResultValue(result: CallToolResult, context: FailureContext): unknown {
  if (result.isError) throw toolErrorOf(result.content ?? [], context);
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content: Content = result.content ?? [];
  if (content.length === 1 && content[0].type === "text") {
    const text = content[0].text;
    if (JSON_START.test(text)) {
      try {
        return JSON.parse(text);
      } catch {
        // Not JSON after all: the text itself is the value.
      }
    }
    return text;
  }
  return { content };
}

/** The error an `isError` result stands for. */
export function toolErrorOf(content: Content, context: FailureContext): CordonError {
  const texts = content.flatMap((block) => (block.type === "text" ? [block.text] : []));
  const text = texts.join("\n").trim();
  const coded = /^MCP error (-?\d+): /.exec(text);
  if (coded) return codedFailure(Number(coded[1]), text, context);
  const message = text === "" ? "the tool reported an error without a message" : serverText(text);
  return new CordonError("tool_error", `${context.what} failed: ${message}`);
}
