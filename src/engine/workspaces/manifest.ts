/**
 * Outputs as the executor document declares them: `OutputSpec` (camelCase,
 * snake_case and the legacy Go keys all accepted), and the `OutputManifest`
 * of `FileRef`s a collection returns (MIME type, size, inline text content,
 * truncation, the artifact it was saved as).
 *
 * @module
 */
import { bad } from "./request.ts";
import { normalizeGlobs } from "./layout.ts";
import type { OutputSpec } from "./spec_types.ts";
import { MAX_INLINE_OUTPUT_BYTES } from "./spec_types.ts";
export { MAX_INLINE_OUTPUT_BYTES };
export type { FileRef, OutputManifest, OutputSpec } from "./spec_types.ts";

/** Spellings accepted for each field: camelCase, snake_case, legacy Go. */
const KEYS: Record<keyof OutputSpec, string[]> = {
  globs: ["globs", "Globs"],
  maxFiles: ["maxFiles", "max_files", "MaxFiles"],
  maxFileBytes: ["maxFileBytes", "max_file_bytes", "MaxFileBytes"],
  maxTotalBytes: ["maxTotalBytes", "max_total_bytes", "MaxTotalBytes"],
  save: ["save", "Save"],
  nameTemplate: ["nameTemplate", "name_template", "NameTemplate"],
  inline: ["inline", "Inline"],
  saveAs: ["saveAs", "save_as"],
};

/**
 * An output spec in camelCase from any accepted spelling, its globs normalized
 * ({@link normalizeGlobs}); an unknown key or two spellings of one field are refused.
 */
export function parseOutputSpec(raw: unknown): OutputSpec {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw bad("outputs is { globs, maxFiles?, maxFileBytes?, maxTotalBytes?, save?, ... }");
  }
  const known = new Map<string, keyof OutputSpec>();
  for (const [field, names] of Object.entries(KEYS)) {
    for (const n of names) known.set(n, field as keyof OutputSpec);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    const field = known.get(k);
    if (!field) throw bad(`outputs.${k.slice(0, 50)} is not a field`);
    if (field in out) throw bad(`outputs.${field} is given twice`);
    if (v !== undefined) out[field] = v;
  }
  const spec = out as unknown as OutputSpec;
  if (Array.isArray(spec.globs) && spec.globs.every((g) => typeof g === "string")) {
    spec.globs = normalizeGlobs(spec.globs);
  }
  for (const k of ["save", "inline"] as const) {
    if (spec[k] !== undefined && typeof spec[k] !== "boolean") {
      throw bad(`outputs.${k} is true or false`);
    }
  }
  const t = spec.nameTemplate;
  if (t !== undefined && (typeof t !== "string" || t.length > 200)) {
    throw bad("outputs.nameTemplate is a string of at most 200 characters");
  }
  return spec;
}

/** The artifact name a file is saved under, or undefined when the spec saves nothing. */
export function savedName(spec: OutputSpec, path: string): string | undefined {
  if (spec.saveAs) return `${spec.saveAs.prefix}${path}`;
  if (!spec.save) return undefined;
  const t = spec.nameTemplate ?? "{name}";
  return t.includes("{name}") ? t.replaceAll("{name}", path) : `${t}${path}`;
}

/**
 * Whether `mimeType` is text that can be inlined as UTF-8: `text/*`, JSON, XML, YAML,
 * JavaScript, TOML, SQL, and `+json`/`+xml` suffixes.
 */
export function isTextMime(mimeType: string): boolean {
  const t = mimeType.split(";")[0].trim().toLowerCase();
  if (t.startsWith("text/")) return true;
  if (t.endsWith("+json") || t.endsWith("+xml")) return true;
  return [
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-javascript",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/sql",
    "application/x-sh",
    "application/typescript",
  ].includes(t);
}
