/**
 * What a caller sees: its key's namespace, or any namespace for `admin`.
 *
 * @module
 */
import type { ExecutionDetails, Runtime } from "../../engine/mod.ts";
import { fail } from "../http/http.ts";
import type { Principal } from "./keys.ts";

/** True for keys that see every namespace. */
export function isAdmin(p: Principal): boolean {
  return p.scopes.has("admin");
}

/**
 * The namespace a request acts in: an admin may name any (or none, meaning all, where `all`
 * is allowed); any other key only its own.
 */
export function namespaceFor(
  p: Principal,
  requested: string | undefined,
  all = false,
): string | undefined {
  if (isAdmin(p)) return requested ?? (all ? undefined : p.namespace);
  if (requested !== undefined && requested !== p.namespace) {
    fail("forbidden", `This key acts in namespace "${p.namespace}", not "${requested}"`);
  }
  return p.namespace;
}

/** An execution the caller may see; `execution_not_found` otherwise (nothing leaks). */
export async function visibleExecution(
  runtime: Runtime,
  p: Principal,
  id: string,
): Promise<ExecutionDetails> {
  const d = await runtime.execution(id);
  if (!d || (!isAdmin(p) && d.namespace !== p.namespace)) {
    fail("execution_not_found", `There is no execution ${id}`);
  }
  return d;
}
