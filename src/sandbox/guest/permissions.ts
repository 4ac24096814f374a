/**
 * Permission errors in Cordon's words. Deno ends one with its remedy ("run
 * again with the --allow-net flag"), which a sandboxed script cannot take and
 * a model reads as advice; Cordon says what decides instead (the execution's
 * network policy, its workspace, the allowed packages). `fetch` says so even
 * to a script that catches its error, and the entry says so for any
 * permission error a script leaves uncaught.
 *
 * @module
 */

/** Deno's remedy in a permission error, which a sandboxed script cannot take. */
const DENO_REMEDY = /,? run again with the --allow-(\w+) flag\.?$/;

/** What decides each permission in Cordon, said where Deno says which flag to pass. */
const CORDON_REMEDY: Record<string, string> = {
  net: "the execution's network policy decides which hosts code may reach: list them in " +
    'policy.net (execute({ policy: { net: ["host"] } })); private addresses stay denied',
  read: "code may read files only in its workspace (execute({ workspace }), the `workspace` " +
    "global); nothing else on disk is readable",
  write: "code may write files only in its workspace (execute({ workspace }), the `workspace` " +
    "global); nothing else on disk is writable",
  import: "the sandbox imports no URLs; import the packages the runtime allows by name",
};

/** Errors whose message was put in Cordon's words already, with the permission they lacked. */
const explained = new WeakMap<Error, string>();

/**
 * The permission `err` lacked, with its message in Cordon's words (rewritten in place, once), or
 * `undefined` for any other error. Environment, processes, system information and native code
 * are never granted.
 */
export function explainPermission(err: Error): string | undefined {
  const known = explained.get(err);
  if (known !== undefined) return known;
  const m = DENO_REMEDY.exec(err.message);
  if (!m) return undefined;
  const permission = m[1];
  const remedy = CORDON_REMEDY[permission] ??
    `the sandbox never grants ${permission} access; ask the host for a tool that does this`;
  err.message = `${err.message.slice(0, m.index)}: ${remedy}`;
  explained.set(err, permission);
  return permission;
}

/** Replaces `fetch` with one whose permission errors say Cordon's remedy. Call before user code. */
export function explainDeniedFetch(): void {
  const original = globalThis.fetch;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    try {
      return await original(input, init);
    } catch (err) {
      if (err instanceof Error) explainPermission(err);
      throw err;
    }
  };
  Object.defineProperty(globalThis, "fetch", {
    value: fetch,
    writable: true,
    configurable: true,
    enumerable: true,
  });
}
