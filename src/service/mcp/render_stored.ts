/**
 * What the MCP text says of output kept out of the answer: a result stored as an artifact
 * (its size, shape, preview, and how to read the rest in pages) and console lines beyond the
 * inline part (how to read them all).
 *
 * @module
 */
import type { ResultReference, ResultShape } from "../../engine/artifacts/results.ts";
import type { ExecutionMeta } from "../../engine/execution/types.ts";

/** What these lines read of an outcome: a live result or one read back from the store. */
interface Rendered {
  status: string;
  result?: unknown;
  meta?: Pick<ExecutionMeta, "resultRef" | "logRef" | "logsTruncated">;
}

/** Where the service serves artifacts and logs (the text names the routes for HTTP clients). */
const ARTIFACTS_PATH = "/v1/artifacts";
const LOGS_PATH = "/v1/logs";

function shapeLine(shape: ResultShape): string {
  if (shape.type === "array" && "head" in shape) {
    return `An array of ${shape.length} items; its first ${shape.head.length} are in structuredContent.result.shape.head.`;
  }
  if (shape.type === "object" && "keys" in shape) {
    const more = shape.keyCount > shape.keys.length ? ", …" : "";
    return `An object with ${shape.keyCount} keys: ${shape.keys.join(", ")}${more}.`;
  }
  if ("length" in shape) return `A ${shape.type} of length ${shape.length}.`;
  return `A ${shape.type}.`;
}

/** The lines describing a stored result: what it is, a preview, and how to page through it. */
export function storedResultLines(out: Rendered): string[] {
  if (out.status !== "completed" || !out.meta?.resultRef) return [];
  const ref = out.result as ResultReference;
  const at = ref.resultRef.lastIndexOf("@");
  const http = `GET ${ARTIFACTS_PATH}/${ref.resultRef.slice(0, at)}?version=${
    ref.resultRef.slice(at + 1)
  }&offset=${ref.nextCursor}&limit=${ref.pageBytes}`;
  return [
    `The result is ${ref.totalBytes} bytes of JSON, over the inline limit: it is stored as ${ref.resultRef}.`,
    shapeLine(ref.shape),
    `Preview (its first ${ref.preview.length} characters):`,
    ref.preview,
    "",
    `Read the rest in pages (up to ${ref.pageBytes} bytes each; pass each nextCursor back until there is none):`,
    `- with execute: return await codemode.readResult({ resultRef: ${
      JSON.stringify(ref.resultRef)
    }, cursor: "${ref.nextCursor}" })`,
    `- over Cordon's HTTP API: ${http}`,
    "Or filter it in one program: join the pages' text from the start (limit up to 1048576), " +
    "JSON.parse it, and return only what you need.",
  ];
}

/** The line saying where the console lines left out of the answer are. */
export function storedLogLines(out: Rendered): string[] {
  const logRef = out.meta?.logRef;
  if (!out.meta?.logsTruncated || !logRef) return [];
  return [
    `(More console output than shown: read every kept line with codemode.readLogs({ logRef: "${logRef}" }) in a program, or GET ${LOGS_PATH}/${logRef}.)`,
  ];
}
