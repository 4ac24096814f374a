/**
 * Which session closes to make room for a new one: a namespace at its own cap
 * gives up its least recently used idle session, and a full host takes one
 * from the namespace holding the most, so every tenant keeps a fair share.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { SessionSettings } from "./settings.ts";
import type { LiveSession } from "./types.ts";

/** Live sessions of `namespace`. */
function count(live: ReadonlyMap<string, LiveSession>, namespace: string): number {
  let n = 0;
  for (const s of live.values()) if (s.namespace === namespace) n++;
  return n;
}

/**
 * The session to close so `namespace` may open one, undefined when none need close; throws
 * `limit_exceeded` when one must but every candidate is busy. A namespace at its own cap
 * gives up its least recently used idle session. When the host is full, the victim is the
 * least recently used idle session of the namespace holding the most, and only if that
 * namespace holds more than the opener: a tenant never loses a session to one holding as
 * many as it does or more, so every tenant keeps a fair share.
 */
export function chooseVictim(
  live: ReadonlyMap<string, LiveSession>,
  namespace: string,
  settings: SessionSettings,
): LiveSession | undefined {
  const { maxSessions } = settings;
  const perNamespace = Math.min(settings.maxSessionsPerNamespace, maxSessions);
  const mine = count(live, namespace);
  const idle = [...live.values()].filter((s) => !s.busy);
  if (mine >= perNamespace) {
    const own = idle.filter((s) => s.namespace === namespace)
      .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
    if (own) return own;
    throw new CordonError(
      "limit_exceeded",
      `All ${mine} sessions of namespace "${namespace}" are busy and it may hold at most ${perNamespace}; close one or try again when one is free`,
      { details: { maxSessionsPerNamespace: perNamespace } },
    );
  }
  if (live.size < maxSessions) return undefined;
  const counts = new Map<string, number>();
  for (const s of live.values()) {
    counts.set(s.namespace, (counts.get(s.namespace) ?? 0) + 1);
  }
  const victim = idle
    .filter((s) => s.namespace === namespace || counts.get(s.namespace)! > mine)
    .sort((a, b) =>
      counts.get(b.namespace)! - counts.get(a.namespace)! || a.lastUsedAt - b.lastUsedAt
    )[0];
  if (victim) return victim;
  throw new CordonError(
    "limit_exceeded",
    `All ${maxSessions} sessions are busy or held by namespaces with no more than this one's ${mine}; try again when one is free`,
    { details: { maxSessions } },
  );
}
