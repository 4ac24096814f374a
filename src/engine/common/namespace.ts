/**
 * Namespaces: the tenant an execution or snippet belongs to. A service key
 * is bound to one; the library uses {@link DEFAULT_NAMESPACE} unless told.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";

/** The namespace of everything that does not name one. */
export const DEFAULT_NAMESPACE = "default";

/** Lowercase letters, digits, `-` and `_`, starting with a letter or digit; at most 64. */
export const NAMESPACE_PATTERN: RegExp = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Returns `namespace` (or the default) if valid; throws `invalid_request` otherwise. */
export function checkNamespace(namespace: unknown): string {
  if (namespace === undefined) return DEFAULT_NAMESPACE;
  if (typeof namespace !== "string" || !NAMESPACE_PATTERN.test(namespace)) {
    throw new CordonError(
      "invalid_request",
      `A namespace is 1 to 64 lowercase letters, digits, "-" or "_", starting with a letter or digit; got ${
        JSON.stringify(namespace)?.slice(0, 80)
      }`,
    );
  }
  return namespace;
}

/** Which namespace a call acts in (the default one when absent). */
export interface InNamespace {
  /** The namespace to act in: lowercase letters, digits, `-` and `_` (at most 64). */
  namespace?: string;
}
