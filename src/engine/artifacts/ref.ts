/**
 * Artifact names and references. A name is path-like (`reports/2024/q1.csv`)
 * but can never climb (`..`), start at a root (`/x`) or carry characters a
 * URL, a shell or a file system would read differently; `@` and `:` are not
 * name characters, so `name@version` and `artifact://` parse unambiguously.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";

/**
 * Up to 8 segments joined by `/`; each starts with a letter or digit, then up to 127 letters,
 * digits, `.`, `_` or `-`. A segment cannot start with `.`, so `.` and `..` are impossible.
 */
export const ARTIFACT_NAME: RegExp =
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}(?:\/[A-Za-z0-9][A-Za-z0-9._-]{0,127}){0,7}$/;
/** A whole name is at most this long: it has to fit a URL path, a prompt and a log line. */
export const MAX_ARTIFACT_NAME_CHARS = 256;
/** The scheme a reference may carry, as in `artifact://reports/q1.csv@2`. */
export const ARTIFACT_SCHEME = "artifact://";

/** An artifact reference taken apart. */
export interface ArtifactRef {
  /** The artifact's name. */
  name: string;
  /** The version asked for; absent means the newest. */
  version?: number;
}

/** True when `name` is a valid artifact name. */
export function isArtifactName(name: unknown): name is string {
  return typeof name === "string" && name.length <= MAX_ARTIFACT_NAME_CHARS &&
    ARTIFACT_NAME.test(name);
}

/** Returns `name` if it is a valid artifact name; throws `invalid_request` otherwise. */
export function checkArtifactName(name: unknown): string {
  if (!isArtifactName(name)) {
    throw new CordonError(
      "invalid_request",
      `Invalid artifact name ${
        JSON.stringify(name)?.slice(0, 80)
      }: use up to 8 "/"-separated parts, each a letter or digit then letters, digits, ".", "_" or "-" (at most ${MAX_ARTIFACT_NAME_CHARS} characters in all)`,
    );
  }
  return name;
}

/** Returns `version` if it is a version number (a whole number from 1); throws otherwise. */
export function checkArtifactVersion(version: unknown): number {
  if (!Number.isSafeInteger(version) || (version as number) < 1) {
    throw new CordonError(
      "invalid_request",
      `An artifact version is a whole number from 1; got ${JSON.stringify(version)?.slice(0, 40)}`,
    );
  }
  return version as number;
}

/**
 * Parses `name`, `name@version`, `artifact://name` or `artifact://name@version`; throws
 * `invalid_request` for anything else.
 *
 * @example
 * ```ts
 * import { parseArtifactRef } from "@cordon/runtime";
 * const ref = parseArtifactRef("artifact://reports/q1.csv@2");
 * console.assert(ref.name === "reports/q1.csv" && ref.version === 2);
 * console.assert(parseArtifactRef("notes.md").version === undefined);
 * ```
 */
export function parseArtifactRef(ref: string): ArtifactRef {
  if (typeof ref !== "string") {
    throw new CordonError("invalid_request", "An artifact reference is a string");
  }
  const bare = ref.startsWith(ARTIFACT_SCHEME) ? ref.slice(ARTIFACT_SCHEME.length) : ref;
  const at = bare.lastIndexOf("@");
  if (at === -1) return { name: checkArtifactName(bare) };
  const digits = bare.slice(at + 1);
  if (!/^[1-9][0-9]{0,15}$/.test(digits)) {
    throw new CordonError(
      "invalid_request",
      `Invalid artifact reference ${
        JSON.stringify(ref.slice(0, 300))
      }: after "@" comes a version number from 1`,
    );
  }
  return { name: checkArtifactName(bare.slice(0, at)), version: checkArtifactVersion(+digits) };
}
