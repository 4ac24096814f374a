/**
 * The workspace a request over HTTP may ask for: inline files, artifact and
 * workspace inputs (as a path map or the document's `InputSpec` list), a
 * bootstrap (a file map, or the document's files and commands), outputs to
 * collect (camelCase or the document's snake_case keys), and keeping it.
 * Host directories are never staged from a request (library callers only).
 *
 * @module
 */
import { z } from "zod";
import { MAX_GLOB_CHARS } from "../../engine/workspaces/glob.ts";
import { MAX_OUTPUT_GLOBS } from "../../engine/workspaces/workspace.ts";

const path = z.string().min(1).max(1_000);
const count = z.number().int().positive().optional();
const env = z.record(z.string().max(128), z.string().max(64 * 1024)).optional();

const inputSpec = z.object({
  from: z.string().min(1).max(2_000)
    // host:// is for library callers: a request never names the server's own files.
    .regex(/^(?!host:)/i, "host:// inputs are not offered over HTTP")
    .describe("artifact://name[@version], workspace://<id>/<path> or skill://name/path"),
  to: path.optional().describe("Workspace-relative destination (default work/inputs/<name>)"),
  mode: z.enum(["copy", "link"]).optional(),
  pin: z.boolean().optional(),
}).strict();

const command = z.object({
  key: z.string().max(200).optional(),
  cmd: z.string().min(1).max(4_096),
  args: z.array(z.string().max(256 * 1024)).max(1_024).optional(),
  env,
  cwd: path.optional(),
  timeoutMs: count,
  markerPath: path.optional(),
  observedPaths: z.array(path).max(100).optional(),
  fingerprintInputs: z.array(path).max(100).optional(),
  fingerprintSalt: z.string().max(200).optional(),
  optional: z.boolean().optional(),
}).strict();

const bootstrapFile = z.object({
  key: z.string().max(200).optional(),
  target: path,
  content: z.string().optional(),
  mode: z.number().int().min(0).max(0o777).optional(),
  input: inputSpec.optional(),
  optional: z.boolean().optional(),
}).strict();

const outputs = z.object({
  globs: z.array(z.string().min(1).max(MAX_GLOB_CHARS)).min(1).max(MAX_OUTPUT_GLOBS),
  maxFiles: count,
  maxFileBytes: count,
  maxTotalBytes: count,
  max_files: count,
  max_file_bytes: count,
  max_total_bytes: count,
  saveAs: z.object({ prefix: z.string().max(200) }).strict().optional(),
  save: z.boolean().optional(),
  nameTemplate: z.string().max(200).optional(),
  name_template: z.string().max(200).optional(),
  inline: z.boolean().optional(),
}).strict();

/** The workspace part of a run's body. */
export const workspaceBody = z.object({
  files: z.record(z.string(), z.union([z.string(), z.object({ base64: z.string() }).strict()]))
    .optional().describe("Files written before the run: path → text or { base64 }"),
  inputs: z.union([z.record(z.string(), z.string()), z.array(inputSpec).max(100)]).optional()
    .describe("path → artifact://… or workspace://…, or a list of InputSpec"),
  bootstrap: z.union([
    z.record(z.string(), z.string()),
    z.object({
      files: z.array(bootstrapFile).max(100).optional(),
      commands: z.array(command).max(50).optional(),
    }).strict(),
  ]).optional()
    .describe("Files (and commands) applied once, re-applied when they change or vanish"),
  outputs: outputs.optional(),
  persist: z.boolean().optional(),
  id: z.string().max(100).optional(),
  quotaBytes: z.number().int().positive().optional(),
  quotaEntries: z.number().int().positive().optional(),
}).strict();
