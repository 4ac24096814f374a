/**
 * PascalCase type names from tool names (`read-file` → `ReadFile`,
 * `get_file.v2` → `GetFileV2`), unique within one connector.
 *
 * @module
 */

/** The PascalCase stem of a tool name; `Tool` when nothing usable is left. */
export function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  const stem = words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
  if (stem === "") return "Tool";
  return /^[0-9]/.test(stem) ? `T${stem}` : stem;
}

/**
 * Type-name stems for `names`, in the same order: two tools that map to the
 * same stem get `2`, `3`, … suffixes in the order given, so callers sort
 * first for stable names.
 */
export function typeNameStems(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    const base = pascalCase(name);
    let stem = base;
    for (let n = 2; used.has(stem); n++) stem = `${base}${n}`;
    used.add(stem);
    return stem;
  });
}
