/**
 * `caplets`: one frozen `CapletHandle` per connector (`caplets.<id>`, the same object as
 * `codemode.connector(id)`) and `caplets.debug` (`readLogs`, `readRecovery`: the same functions
 * as `codemode.readLogs` / `codemode.readRecovery`), as the Caplets Code Mode API documents them.
 *
 * Listings, searches and `inspect()` resolve to the value itself (a `Page`, a `CapletCard`) and
 * reject with a coded error for a failure that is not expected; the other methods resolve to
 * `{ ok: true, data } | { ok: false, error }` and never reject. `callTool` is a real tool call
 * (authorized, journaled, approvals apply).
 *
 * Runs inside the child: nothing but `../../rpc/`, the shared protocol and errors.
 *
 * @module
 */
import type { Peer } from "../../rpc/peer.ts";
import {
  HANDLE_METHODS,
  type HandleMethod,
  type HandleResult,
  METHOD_HANDLE,
  METHOD_TOOL_CALL,
} from "../protocol.ts";
import { errorInfoOf, toolError } from "./tool_errors.ts";

const { defineProperty, freeze, create } = Object;

/** Methods whose documented result is the value itself, not a `CapletsResult` envelope. */
const BARE_METHODS: ReadonlySet<HandleMethod> = new Set<HandleMethod>([
  "inspect",
  "tools",
  "searchTools",
  "resources",
  "searchResources",
  "resourceTemplates",
  "prompts",
  "searchPrompts",
]);

/** One connector's handle. */
export function makeHandle(peer: Peer, id: string): object {
  const handle = create(null);
  defineProperty(handle, "id", { value: id, enumerable: true });
  for (const method of HANDLE_METHODS) {
    const bare = BARE_METHODS.has(method);
    const fn = async (...args: unknown[]) => {
      let result: HandleResult;
      try {
        if (method === "callTool") {
          const [tool, toolArgs] = args;
          const data = await peer.request(METHOD_TOOL_CALL, {
            connector: id,
            tool: String(tool),
            args: toolArgs,
          });
          return { ok: true, data };
        }
        result =
          (await peer.request(METHOD_HANDLE, { connector: id, method, args })) as HandleResult;
      } catch (err) {
        const info = errorInfoOf(err);
        if (bare) throw toolError(`caplets.${id}`, method, info);
        const error: Record<string, unknown> = { code: info.code, message: info.message };
        if (info.details) error.details = info.details;
        return { ok: false, error };
      }
      if (!bare) return result;
      if (result.ok) return result.data;
      throw toolError(`caplets.${id}`, method, result.error as never);
    };
    defineProperty(fn, "name", { value: method });
    defineProperty(handle, method, { value: fn, enumerable: true });
  }
  return freeze(handle);
}

/** The `caplets` global and `codemode.connector`, sharing one handle per known connector. */
export function makeCaplets(
  peer: Peer,
  ids: readonly string[],
  debug: { readLogs: unknown; readRecovery: unknown },
): { caplets: object; connector: (id: string) => object } {
  const caplets = create(null);
  const known = new Map<string, object>();
  for (const id of ids) {
    if (id === "debug") continue;
    const handle = makeHandle(peer, id);
    known.set(id, handle);
    defineProperty(caplets, id, { value: handle, enumerable: true });
  }
  defineProperty(caplets, "debug", { value: freeze({ ...debug }), enumerable: false });
  // An unknown id still gets a handle: its methods answer connector_not_found as values.
  const connector = (id: string) => known.get(String(id)) ?? makeHandle(peer, String(id));
  return { caplets: freeze(caplets), connector };
}
