/**
 * Inputs as the executor document declares them: `InputSpec { from, to,
 * mode, pin }` with `artifact://`, `workspace://`, `host://` (library
 * callers, allowed roots only) and `skill://` sources, each staged by copy
 * and recorded in metadata.json. Nothing here creates or follows a symlink.
 *
 * @module
 */
import { basename, isAbsolute, join, normalize, relative } from "node:path";
import type { Context } from "@opentelemetry/api";
import { CordonError } from "../../errors.ts";
import { sha256Hex } from "../../hash.ts";
import { bad, insidePath } from "./request.ts";
import { readMeta } from "./owner.ts";
import { DIR_SKILLS, DIR_WORK } from "./layout.ts";
import type { InputRecord, SkillMeta, WorkspaceMetadata } from "./metadata.ts";
import { ATTR_COUNT, ATTR_HOST_PATH, ATTR_MOUNT_USED, ATTR_TO, inSpan } from "./tracing.ts";
import { SPAN_WORKSPACE_STAGE_DIR, SPAN_WORKSPACE_STAGE_FILES } from "./tracing.ts";
import type { InputSpec, WorkspaceHost } from "./types.ts";
export type { InputSpec };

const SCHEME = /^(artifact|workspace|host|skill):\/\/(.+)$/;
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Checks one spec's shape (before anything is written); returns it with `to` resolved. */
export function checkInputSpec(
  spec: unknown,
): Required<Pick<InputSpec, "from" | "to">> & InputSpec {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    throw bad("an input is { from, to?, mode?, pin? }");
  }
  const s = spec as InputSpec;
  if (typeof s.from !== "string" || s.from.length > 2000) throw bad("input.from must be a URI");
  const m = SCHEME.exec(s.from);
  if (!m) {
    throw bad(
      `input ${s.from.slice(0, 100)}: from is artifact://, workspace://, host:// or skill://`,
    );
  }
  if (s.mode !== undefined && s.mode !== "copy" && s.mode !== "link") {
    throw bad('input.mode is "copy" or "link"');
  }
  if (s.pin !== undefined && typeof s.pin !== "boolean") throw bad("input.pin is true or false");
  let to = s.to;
  if (to === undefined) {
    if (m[1] === "skill") {
      const [name, ...rest] = m[2].split("/");
      to = join(DIR_SKILLS, name, ...rest);
    } else {
      to = join(DIR_WORK, "inputs", basename(m[2].replace(/@\d+$/, "")));
    }
  }
  return { ...s, to: insidePath(to) };
}

/** A stable digest of a directory tree: sorted relative paths and their contents, hashed. */
export async function dirDigest(root: string): Promise<string> {
  const parts: string[] = [];
  const walk = async (dir: string) => {
    const entries = await Array.fromAsync(Deno.readDir(dir));
    entries.sort((a, b) => a.name < b.name ? -1 : 1);
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.isFile) {
        parts.push(`${relative(root, path)}\0${await sha256Hex(await Deno.readFile(path))}`);
      }
    }
  };
  await walk(root);
  return await sha256Hex(parts.join("\n"));
}

/** Copies a host file or tree in, refusing symlinks (they would lead out of the workspace). */
export async function copyTree(from: string, to: string): Promise<number> {
  const info = await Deno.lstat(from);
  if (info.isSymlink) throw bad(`"${from}" is a symlink; symlinks are never staged`);
  if (info.isFile) {
    await Deno.mkdir(join(to, ".."), { recursive: true });
    await Deno.remove(to).catch(() => {});
    await Deno.copyFile(from, to);
    return 1;
  }
  if (!info.isDirectory) throw bad(`"${from}" is neither a file nor a directory`);
  await Deno.mkdir(to, { recursive: true });
  let count = 0;
  for await (const e of Deno.readDir(from)) {
    count += await copyTree(join(from, e.name), join(to, e.name));
  }
  return count;
}

/** A host path inside `roots` (compared by real path), or a `policy_denied` error. */
export async function allowedHostPath(path: string, roots: readonly string[] | undefined) {
  if (!roots?.length) {
    throw new CordonError(
      "policy_denied",
      "host:// inputs are off: the runtime's workspaces.hostRoots lists none",
    );
  }
  if (!isAbsolute(path) || normalize(path) !== path.replace(/\/+$/, "") || path.includes("\0")) {
    throw bad(`host://${path.slice(0, 200)} is not a normalized absolute path`);
  }
  const real = await Deno.realPath(path).catch(() => undefined);
  if (real === undefined) throw new CordonError("not_found", `host://${path}: no such path`);
  for (const root of roots) {
    const r = await Deno.realPath(root).catch(() => undefined);
    if (r !== undefined && (real === r || real.startsWith(r.endsWith("/") ? r : `${r}/`))) {
      return real;
    }
  }
  throw new CordonError("policy_denied", `host://${path} is outside the allowed host roots`);
}

async function writeInto(dir: string, to: string, data: Uint8Array): Promise<void> {
  const path = join(dir, to);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeFile(path, data);
}

/**
 * Stages `specs` into the workspace directory `dir`, in order, recording each in `md` (an
 * {@link InputRecord}; a skill also as a {@link SkillMeta}). `host://` is refused unless the
 * host lists roots (the HTTP API's schema takes no `host://` at all).
 */
export async function stageInputs(
  dir: string,
  specs: readonly InputSpec[],
  host: WorkspaceHost,
  md: WorkspaceMetadata,
  ctx?: Context,
): Promise<void> {
  for (const raw of specs) {
    const spec = checkInputSpec(raw);
    const [, scheme, rest] = SCHEME.exec(spec.from)!;
    const ts = new Date().toISOString();
    const record: InputRecord = { from: spec.from, to: spec.to, mode: "copy", ts };
    if (spec.pin) record.pin = true;
    if (scheme === "artifact") {
      let ref = spec.from;
      const pinned = md.inputs?.findLast((r) =>
        r.pin && r.from === spec.from && r.to === spec.to && r.version !== undefined
      );
      if (spec.pin && pinned) ref = `artifact://${rest.replace(/@\d+$/, "")}@${pinned.version}`;
      const got = await host.artifact(ref, { namespace: host.namespace });
      if (!got) {
        throw new CordonError("not_found", `Workspace input ${ref}: there is no such artifact`);
      }
      await stageFile(dir, spec.to, got.data, ctx);
      record.resolved = got.info.ref;
      record.version = got.info.version;
    } else if (scheme === "workspace") {
      const m = /^(ws_[0-9a-f]{32})\/(.+)$/.exec(rest);
      if (!m) throw bad(`input ${spec.from} must be workspace://<id>/<path>`);
      const owner = await readMeta(host.root, m[1]);
      if (!owner || owner.namespace !== host.namespace) {
        throw new CordonError(
          "not_found",
          `Workspace input ${spec.from}: there is no such workspace`,
        );
      }
      const path = join(host.root, m[1], insidePath(m[2]));
      const info = await Deno.lstat(path).catch(() => undefined);
      if (!info?.isFile) {
        throw new CordonError("not_found", `Workspace input ${spec.from}: no such file`);
      }
      await stageFile(dir, spec.to, await Deno.readFile(path), ctx);
    } else if (scheme === "host") {
      const real = await allowedHostPath(`/${rest.replace(/^\/+/, "")}`, host.hostRoots);
      await stageDir(real, dir, spec.to, ctx);
      record.resolved = real;
    } else {
      const [name, ...sub] = rest.split("/");
      if (!SKILL_NAME.test(name) || !host.skillsRoot) {
        throw new CordonError(
          host.skillsRoot ? "invalid_request" : "not_supported",
          host.skillsRoot ? `skill name "${name}" is not valid` : "This runtime has no skillsRoot",
        );
      }
      const subPath = sub.length ? insidePath(sub.join("/")) : "";
      const from = join(host.skillsRoot, name, subPath);
      await allowedHostPath(from, [join(host.skillsRoot, name)]).catch(() => {
        throw new CordonError("not_found", `Workspace input ${spec.from}: no such skill path`);
      });
      await stageDir(from, dir, spec.to, ctx);
      const relPath = join(DIR_SKILLS, name);
      const staged = join(dir, relPath);
      if ((await Deno.lstat(staged).catch(() => undefined))?.isDirectory) {
        const skill: SkillMeta = {
          name,
          rel_path: relPath,
          digest: await dirDigest(staged),
          mounted: false,
          staged_at: ts,
        };
        md.skills[name] = skill;
      }
      record.resolved = join(name, subPath);
    }
    (md.inputs ??= []).push(record);
  }
}

async function stageFile(dir: string, to: string, data: Uint8Array, ctx?: Context) {
  await inSpan(SPAN_WORKSPACE_STAGE_FILES, { [ATTR_COUNT]: 1, [ATTR_TO]: to }, ctx, async () => {
    await writeInto(dir, to, data);
  });
}

async function stageDir(from: string, dir: string, to: string, ctx?: Context) {
  const attrs = { [ATTR_HOST_PATH]: from, [ATTR_TO]: to, [ATTR_MOUNT_USED]: false };
  await inSpan(SPAN_WORKSPACE_STAGE_DIR, attrs, ctx, async (span) => {
    span.setAttribute(ATTR_COUNT, await copyTree(from, join(dir, to)));
  });
}
