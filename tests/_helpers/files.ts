/** Small file checks the tests share. */

/** True when something is at `path` (a file, a folder, a link). */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
