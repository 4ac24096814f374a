/**
 * Parameter values as URL, header and cookie text, following the OpenAPI
 * `style` and `explode` rules: `simple`, `label` and `matrix` in paths;
 * `form`, `spaceDelimited`, `pipeDelimited` and `deepObject` in queries.
 * Parameters declared with JSON `content` are sent as JSON text.
 *
 * @module
 */
import { isRecord } from "../typegen/refs.ts";
import type { OpenApiParameter } from "./operations.ts";

/** A single value as text: strings as they are, nested values as JSON. */
export function scalarText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const encode = (value: unknown) => encodeURIComponent(scalarText(value));

/**
 * A path parameter's value, encoded, to put in place of `{name}`.
 *
 * @example
 * ```ts
 * import { serializePathValue } from "./serialize.ts";
 * const p = { name: "id", in: "path" as const, required: true, schema: {}, style: "simple", explode: false, json: false };
 * console.assert(serializePathValue(p, "a/b") === "a%2Fb");
 * console.assert(serializePathValue(p, [1, 2]) === "1,2");
 * ```
 */
export function serializePathValue(p: OpenApiParameter, value: unknown): string {
  if (p.json) return encodeURIComponent(JSON.stringify(value));
  const name = encodeURIComponent(p.name);
  const { style, explode } = p;
  if (Array.isArray(value)) {
    const items = value.map(encode);
    if (style === "label") return `.${items.join(explode ? "." : ",")}`;
    if (style === "matrix") {
      return explode ? items.map((i) => `;${name}=${i}`).join("") : `;${name}=${items.join(",")}`;
    }
    return items.join(",");
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).map(([k, v]) => [encodeURIComponent(k), encode(v)]);
    if (style === "matrix") {
      return explode
        ? entries.map(([k, v]) => `;${k}=${v}`).join("")
        : `;${name}=${entries.flat().join(",")}`;
    }
    const joined = explode
      ? entries.map(([k, v]) => `${k}=${v}`).join(style === "label" ? "." : ",")
      : entries.flat().join(",");
    return style === "label" ? `.${joined}` : joined;
  }
  if (style === "label") return `.${encode(value)}`;
  if (style === "matrix") return `;${name}=${encode(value)}`;
  return encode(value);
}

/** A query parameter as name/value pairs, not yet encoded. */
export function serializeQueryValue(p: OpenApiParameter, value: unknown): [string, string][] {
  const { name, style, explode } = p;
  if (p.json) return [[name, JSON.stringify(value)]];
  if (Array.isArray(value)) {
    const items = value.map(scalarText);
    if (!explode && style === "spaceDelimited") return [[name, items.join(" ")]];
    if (!explode && style === "pipeDelimited") return [[name, items.join("|")]];
    return explode ? items.map((i) => [name, i]) : [[name, items.join(",")]];
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (style === "deepObject") return entries.map(([k, v]) => [`${name}[${k}]`, scalarText(v)]);
    if (explode) return entries.map(([k, v]) => [k, scalarText(v)]);
    return [[name, entries.flatMap(([k, v]) => [k, scalarText(v)]).join(",")]];
  }
  return [[name, scalarText(value)]];
}

/** A header or cookie parameter's value as text (`simple` style). */
export function serializeHeaderValue(p: OpenApiParameter, value: unknown): string {
  if (p.json) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(scalarText).join(",");
  if (isRecord(value)) {
    const entries = Object.entries(value);
    return p.explode
      ? entries.map(([k, v]) => `${k}=${scalarText(v)}`).join(",")
      : entries.flatMap(([k, v]) => [k, scalarText(v)]).join(",");
  }
  return scalarText(value);
}

/** A request body as text, for its kind. */
export function serializeBody(kind: "json" | "form" | "text", body: unknown): string {
  if (kind === "json") return JSON.stringify(body);
  if (kind === "text") return scalarText(body);
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(isRecord(body) ? body : {})) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) form.append(key, scalarText(item));
  }
  return form.toString();
}
