/**
 * The paging arguments the runtime's readers share: a limit, a cursor that
 * is the last `seq` seen, and an unguessable reference.
 *
 * @module
 */
import { CordonError } from "../../errors.ts";

/** The most one page holds. */
export const MAX_PAGE = 500;
/** A page when the caller does not say. */
export const DEFAULT_PAGE = 50;

/** `limit`, or the default; `invalid_request` outside 1 … {@link MAX_PAGE}. */
export function pageLimit(limit: unknown, what: string): number {
  if (limit === undefined) return DEFAULT_PAGE;
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_PAGE) {
    throw new CordonError(
      "invalid_request",
      `${what} limit must be a whole number from 1 to ${MAX_PAGE}; got ${String(limit)}`,
    );
  }
  return limit as number;
}

/** The `seq` a cursor stands for (0 when absent); `invalid_request` for anything else. */
export function seqCursor(cursor: unknown, what: string): number {
  const after = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new CordonError("invalid_request", `Invalid ${what} cursor "${String(cursor)}"`);
  }
  return after;
}

/** A capability reference (`logRef`, `recoveryRef`) as given, or `invalid_request`. */
export function checkRef(ref: unknown, message: string): string {
  if (typeof ref !== "string" || ref === "" || ref.length > 200) {
    throw new CordonError("invalid_request", message);
  }
  return ref;
}
