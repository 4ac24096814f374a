/**
 * Globs that match in time linear in the path: `**` any depth (`**` then `/`:
 * zero or more whole directories), `*` within a name, `?` one character; every other
 * character stands for itself.
 *
 * Why not a regular expression: a glob comes from a script or a request, and
 * V8's backtracking engine took 4-18 s to refuse `*a*a*a*a*a*a*a*a*b` against
 * a 40-character name, with the host's event loop blocked throughout. Here a
 * glob is a small automaton run as a bit set (one bit per position in the
 * glob, all positions advanced together a character at a time), so a path of
 * n characters costs n steps of a few word operations each, whatever the glob.
 *
 * @module
 */

/** The longest glob accepted: a glob names files, it is not a program. */
export const MAX_GLOB_CHARS = 300;

/** A compiled glob. */
export interface Glob {
  /** The glob as written. */
  readonly source: string;
  /** True when the whole of `path` (relative, `/`-separated) matches. */
  test(path: string): boolean;
}

/**
 * One position of a glob: a given character, `?` (one character other than
 * `/`), `*` (any run of characters other than `/`), `**` (any run of
 * characters) or `**` then `/` ("dirs": nothing, or any run ending in `/`).
 */
type Token =
  | { kind: "literal"; char: string }
  | { kind: "one" | "star" | "any" | "dirs" };

function tokenize(glob: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      i++;
      if (glob[i + 1] === "/") {
        i++;
        tokens.push({ kind: "dirs" });
      } else tokens.push({ kind: "any" });
    } else if (c === "*") tokens.push({ kind: "star" });
    else if (c === "?") tokens.push({ kind: "one" });
    else tokens.push({ kind: "literal", char: c });
  }
  return tokens;
}

/** A bit set over the glob's positions, in 32-bit words. */
type Bits = Uint32Array;

function or(a: Bits, b: Bits): Bits {
  const out = new Uint32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] | b[i];
  return out;
}

/** `out = (x & mask) << 1`, carrying between words. */
function shiftMasked(x: Bits, mask: Bits, out: Bits): void {
  let carry = 0;
  for (let i = 0; i < x.length; i++) {
    const w = x[i] & mask[i];
    out[i] = (w << 1) | carry;
    carry = w >>> 31;
  }
}

/**
 * Compiles a glob. Throws a `RangeError` for one longer than
 * {@link MAX_GLOB_CHARS}.
 *
 * @example
 * ```ts
 * import { compileGlob } from "./glob.ts";
 * const g = compileGlob("out/**" + "/*.csv");
 * console.assert(g.test("out/a.csv") && g.test("out/x/y/a.csv") && !g.test("out/a.txt"));
 * console.assert(!compileGlob("*.csv").test("x/a.csv"));
 * ```
 */
export function compileGlob(glob: string): Glob {
  if (glob.length > MAX_GLOB_CHARS) {
    throw new RangeError(
      `A glob is at most ${MAX_GLOB_CHARS} characters (this one is ${glob.length})`,
    );
  }
  const tokens = tokenize(glob);
  const accept = tokens.length;
  const words = (accept >>> 5) + 1;
  const set = (bits: Bits, s: number) => (bits[s >>> 5] |= 1 << (s & 31));
  const empty = () => new Uint32Array(words);
  const literals = new Map<string, Bits>();
  const kinds = { one: empty(), star: empty(), any: empty(), dirs: empty() };
  tokens.forEach((t, s) => {
    if (t.kind !== "literal") return set(kinds[t.kind], s);
    const bits = literals.get(t.char) ?? empty();
    set(bits, s);
    literals.set(t.char, bits);
  });
  const { one, star, any, dirs } = kinds;
  // Per character: the positions that consume it and move on, and those that consume it and stay.
  const advanceOther = one;
  const advanceSlash = or(literals.get("/") ?? empty(), dirs);
  const advanceBy = new Map<string, Bits>();
  for (const [c, bits] of literals) advanceBy.set(c, c === "/" ? advanceSlash : or(bits, one));
  const stayOther = or(or(star, any), dirs);
  const staySlash = or(any, dirs);
  // Positions that may be passed over without a character; "dirs" only on entering it, else
  // `**` then `/` would match a run that does not end in `/`.
  const skipAlways = or(star, any);
  const skipOnEntry = dirs;

  const current = empty();
  const entered = empty();
  const shifted = empty();
  /** Adds every position reachable by skipping from what is in `current` and `entered`. */
  const close = () => {
    for (;;) {
      let carry = 0;
      let grew = false;
      for (let i = 0; i < words; i++) {
        const w = (current[i] & skipAlways[i]) | (entered[i] & skipOnEntry[i]);
        const reach = (w << 1) | carry;
        carry = w >>> 31;
        // Reached by a skip is entered, even when a self-loop already kept it.
        if (reach & ~entered[i]) {
          current[i] |= reach;
          entered[i] |= reach;
          grew = true;
        }
      }
      if (!grew) return;
    }
  };
  return {
    source: glob,
    test(path: string): boolean {
      current.fill(0);
      entered.fill(0);
      current[0] = entered[0] = 1;
      close();
      for (let p = 0; p < path.length; p++) {
        const c = path[p];
        const advance = c === "/" ? advanceSlash : advanceBy.get(c) ?? advanceOther;
        const stay = c === "/" ? staySlash : stayOther;
        shiftMasked(current, advance, shifted);
        let alive = 0;
        for (let i = 0; i < words; i++) {
          entered[i] = shifted[i];
          current[i] = shifted[i] | (current[i] & stay[i]);
          alive |= current[i];
        }
        if (!alive) return false;
        close();
      }
      return (current[accept >>> 5] & (1 << (accept & 31))) !== 0;
    },
  };
}
