/**
 * Identifiers: a prefix, a time part that sorts, and randomness that cannot
 * be guessed (`exec_0192f1c3a4b5_9f3c…`).
 *
 * @module
 */

/** Makes a new id such as `exec_…`; later ids sort after earlier ones. */
export function newId(prefix: string, now: number = Date.now()): string {
  const time = now.toString(16).padStart(12, "0");
  const random = crypto.getRandomValues(new Uint8Array(10));
  let hex = "";
  for (const b of random) hex += b.toString(16).padStart(2, "0");
  return `${prefix}_${time}${hex}`;
}

/** Makes a capability such as `log_…`: 256 random bits, base64url, nothing that sorts or leaks. */
export function newSecret(prefix: string): string {
  const random = crypto.getRandomValues(new Uint8Array(32));
  const b64 = btoa(String.fromCharCode(...random));
  return `${prefix}_${b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
}
