/**
 * Event streams stay open for minutes or hours; a key revoked meanwhile must not keep watching.
 * {@link endWhenRevoked} checks the stream's key now and then and ends the stream once it is
 * revoked (the client's next request is then refused like any other); {@link streamStop} ends a
 * stream on that, on the client going away, or on the service stopping.
 *
 * @module
 */
import type { ApiKeys, Principal } from "../access/keys.ts";

/** How often an open stream checks its key: a revoked key's streams end within this. */
export const KEY_RECHECK_MS = 2_000;

/**
 * Aborts `stop` once the stored key behind `principal` is revoked; returns what stops the
 * checking. Keys from the config file (revoked by editing it and restarting) and local callers
 * without a key have nothing to check.
 */
export function endWhenRevoked(
  keys: ApiKeys,
  principal: Principal | undefined,
  stop: AbortController,
): () => void {
  const id = principal?.keyId;
  if (id === undefined) return () => {};
  let checking = false;
  const timer = setInterval(async () => {
    if (checking || stop.signal.aborted) return;
    checking = true;
    try {
      // A store that cannot answer now is not a revocation: the next check decides.
      if (!(await keys.active(id).catch(() => true))) stop.abort();
    } finally {
      checking = false;
    }
  }, KEY_RECHECK_MS);
  return () => clearInterval(timer);
}

/** Why an open stream ends, as one signal; dispose of it when the stream is over. */
export interface StreamStop extends Disposable {
  /** Aborted when the client goes, the service stops, or the key is revoked. */
  signal: AbortSignal;
}

/** The stop of a stream opened by `principal`, over `keys`, ended by `shutdown` too. */
export function streamStop(
  stream: { onAbort(listener: () => void): void },
  keys: ApiKeys,
  shutdown: AbortSignal,
  principal: Principal | undefined,
): StreamStop {
  const stop = new AbortController();
  stream.onAbort(() => stop.abort());
  const onShutdown = () => stop.abort();
  shutdown.addEventListener("abort", onShutdown);
  const unwatch = endWhenRevoked(keys, principal, stop);
  return {
    signal: stop.signal,
    [Symbol.dispose]() {
      unwatch();
      shutdown.removeEventListener("abort", onShutdown);
    },
  };
}
