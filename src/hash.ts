/**
 * SHA-256 as lowercase hex, for content addresses, fingerprints and key
 * hashes.
 *
 * @module
 */

/** The SHA-256 of `data` (text is UTF-8 encoded first), as 64 lowercase hex digits. */
export async function sha256Hex(data: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}
