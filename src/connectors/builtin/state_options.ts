/**
 * The limits and options of the built-in `state` connector (`state.ts`): value size, keys per
 * calling namespace, key length and `list` page sizes, with their defaults, and the check that
 * a limit given is a positive integer.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";
import type { Db } from "../../store/client.ts";

/**
 * Largest value, in UTF-8 bytes of its JSON. State is working memory, not storage: a value this
 * size is a page of notes or a few thousand ids, and every `get` of it crosses the sandbox
 * channel and is copied into the call log (capped at 1,000,000 bytes per value by default).
 */
export const DEFAULT_STATE_MAX_VALUE_BYTES = 65_536;

/**
 * Keys per calling namespace (tenant). Enough for an agent's bookkeeping; past it a script is using state as
 * a database, and a runaway loop should stop at a limit rather than fill the disk.
 */
export const DEFAULT_STATE_MAX_KEYS = 1_000;

/** Longest key, in characters. Keys are names; a longer one is data hidden in a name. */
export const DEFAULT_STATE_MAX_KEY_LENGTH = 256;

/** Keys per `list` page when the script asks for none: readable at a glance. */
export const DEFAULT_STATE_LIST_LIMIT = 100;

/**
 * Most keys per `list` page: at the longest keys a page stays far below the call log's
 * per-value cap, and the default key limit is then one page.
 */
export const MAX_STATE_LIST_LIMIT = 1_000;

/** Options for `stateConnector` (`state.ts`). */
export interface StateConnectorOptions {
  /** The database; `cordon_state` is created in it on `start()` if missing. */
  db: Db;
  /**
   * Keeps this connector's keys apart from other connectors on the same database. It prefixes
   * the calling execution's namespace, which always separates tenants: keys, the key limit and
   * listings are per calling namespace, whatever this says.
   */
  namespace?: string;
  /** The connector's name (the global a script uses); `state` by default. */
  name?: string;
  /** Largest value in UTF-8 bytes of JSON; {@link DEFAULT_STATE_MAX_VALUE_BYTES} by default. */
  maxValueBytes?: number;
  /** Keys per calling namespace; {@link DEFAULT_STATE_MAX_KEYS} by default. */
  maxKeys?: number;
  /** Longest key in characters; {@link DEFAULT_STATE_MAX_KEY_LENGTH} by default. */
  maxKeyLength?: number;
  /** The clock for `updatedAt`, in ms since the epoch. */
  now?: () => number;
}

/** A limit from the options, or its default; throws `invalid_request` unless a positive integer. */
export function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new CordonError("invalid_request", `stateConnector: ${name} must be a positive integer`);
  }
  return n;
}
