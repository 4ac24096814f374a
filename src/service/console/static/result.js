// An execution's result (and a call's): inline JSON, or, for a result too large to return inline, what the
// server stored (the artifact, its size and shape, a download) and the preview it kept.
import { download } from "./api.js";
import { artifactPath } from "./admin.js";
import { action, bytes, errorBox, fill, h, jsonBlock } from "./dom.js";

/**
 * True for the reference execution `id` returns instead of a result over its inline limit. A
 * script may return an object of the same shape: only a reference to this execution's own
 * stored result (`results/<id>.json@<version>`) counts.
 */
export function isStoredResult(v, id) {
  return typeof v === "object" && v !== null && v.truncated === true &&
    typeof v.preview === "string" && typeof v.resultRef === "string" &&
    new RegExp(`^results/${id}\\.json@\\d+$`).test(v.resultRef);
}

function shapeText(shape) {
  if (!shape || typeof shape !== "object") return "";
  if (shape.type === "array") return `an array of ${shape.length} items`;
  if (shape.type === "object") return `an object with ${shape.keyCount} keys`;
  if (typeof shape.length === "number") return `a ${shape.type} of length ${shape.length}`;
  return `a ${shape.type}`;
}

function stored(ref) {
  const at = ref.resultRef.lastIndexOf("@");
  const name = at > 0 ? ref.resultRef.slice(0, at) : ref.resultRef;
  const version = at > 0 ? ref.resultRef.slice(at + 1) : "";
  const path = artifactPath(name);
  const out = h("div");
  const shape = shapeText(ref.shape);
  return h(
    "div",
    { class: "stored", id: "stored-result" },
    h(
      "p",
      {},
      `Too large to show inline: ${bytes(ref.totalBytes)} of JSON`,
      shape ? ` (${shape})` : "",
      ", stored as ",
      h("a", { href: `#/artifacts/${path}` }, ref.resultRef),
      ". ",
      action("Download", async () => {
        try {
          await download(
            `/v1/artifacts/${path}${version ? `?version=${encodeURIComponent(version)}` : ""}`,
            name.split("/").pop(),
          );
        } catch (err) {
          fill(out, errorBox(err));
        }
      }),
    ),
    out,
    h("p", { class: "muted" }, "Its first characters:"),
    h("pre", { class: "json" }, `${ref.preview} …`),
  );
}

/** The result of completed execution `id`. */
export function resultBlock(value, id) {
  return isStoredResult(value, id) ? stored(value) : jsonBlock(value, true);
}

/** A call's result cell: its error, its value, or what it waits for. */
export function callResult(c) {
  if (c.error) return errorBox(c.error);
  if (c.result !== undefined) return jsonBlock(c.result);
  if (c.state === "pending") {
    return h(
      "span",
      { class: "muted" },
      c.needs === "value" ? "waits for a value" : "waits for approval",
    );
  }
  if (c.state === "executing") return h("span", { class: "muted" }, "running");
  return h("span", { class: "muted" }, "no value");
}
