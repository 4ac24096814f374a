/**
 * The SQL of the `state` connector: every operation is one statement, so it is atomic on any
 * libSQL database, embedded or remote. Positional parameters: `?1` namespace, `?2` key.
 *
 * @module
 */

/** The table, created by the connector itself (it is not part of the store's migrations). */
export const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS cordon_state (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, key)
)`;

/** Inserts only while the namespace has room, or when the key is already there. */
const HAS_ROOM = `WHERE (SELECT COUNT(*) FROM cordon_state WHERE namespace = ?1) < ?5
  OR EXISTS (SELECT 1 FROM cordon_state WHERE namespace = ?1 AND key = ?2)`;

/** Stores a value (`?3`, JSON text), within the key limit (`?5`). */
export const UPSERT = `INSERT INTO cordon_state (namespace, key, value, updated_at)
  SELECT ?1, ?2, ?3, ?4 ${HAS_ROOM}
  ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;

/**
 * Adds `?3` to a stored number, or stores it, within the key limit (`?5`); returns the new
 * value. The addition happens in SQL, so no update is lost; a stored non-number is left alone
 * and nothing is returned.
 */
export const INCREMENT = `INSERT INTO cordon_state (namespace, key, value, updated_at)
  SELECT ?1, ?2, json_quote(?3), ?4 ${HAS_ROOM}
  ON CONFLICT (namespace, key) DO UPDATE SET value = json_quote(value + ?3), updated_at = ?4
    WHERE json_type(value) IN ('integer', 'real')
  RETURNING value`;

/** One page of keys after `?2` starting with `?3`, at most `?4`, with their sizes in bytes. */
export const LIST = `SELECT key, length(CAST(value AS BLOB)) AS bytes, updated_at FROM cordon_state
  WHERE namespace = ?1 AND key > ?2 AND substr(key, 1, length(?3)) = ?3
  ORDER BY key LIMIT ?4`;

/** A value as JSON text. */
export const GET = "SELECT value FROM cordon_state WHERE namespace = ? AND key = ?";

/** Removes a key. */
export const DELETE = "DELETE FROM cordon_state WHERE namespace = ? AND key = ?";

/** The JSON type of a stored value, to explain a refused increment. */
export const TYPE_OF =
  "SELECT json_type(value) AS type FROM cordon_state WHERE namespace = ? AND key = ?";
