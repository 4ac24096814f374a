/**
 * The receiving end of `value_slices.ts`: rebuilds a value one slice at a
 * time, so the host's event loop gets a turn between slices.
 *
 * @module
 */
import { Predecoded } from "./codec.ts";
import { type Slice, Token } from "./value_slices.ts";

interface Open {
  kind: Token;
  target: unknown;
  /** The pending object key, or the pending Map key (`hasKey`). */
  key?: unknown;
  hasKey?: boolean;
  /** The next index of a preallocated array. */
  index?: number;
}

/**
 * Rebuilds a value from its slices, one {@link ValueBuilder.add} per slice.
 *
 * @example
 * ```ts
 * import { sliceValue } from "./value_slices.ts";
 * import { ValueBuilder } from "./value_builder.ts";
 * const b = new ValueBuilder();
 * for (const s of sliceValue({ a: [1, 2], s: "x".repeat(3_000_000) })) b.add(s);
 * console.assert((b.result() as { s: string }).s.length === 3_000_000);
 * ```
 */
export class ValueBuilder {
  #stack: Open[] = [];
  #done = false;
  #result: unknown;

  /** Adds one slice's tokens. */
  add(slice: Slice): void {
    const { kinds, values } = slice;
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[i] as Token;
      switch (kind) {
        case Token.Leaf:
          this.#attach(values[i]);
          break;
        case Token.DecodeFailure: {
          const f = values[i] as { name: string; message: string };
          this.#attach(Predecoded.failed(f.name, f.message));
          break;
        }
        case Token.Key:
          this.#stack[this.#stack.length - 1].key = values[i];
          break;
        case Token.Close: {
          const open = this.#stack.pop()!;
          this.#attach(
            open.kind === Token.OpenDecoded ? Predecoded.of(open.target) : open.target,
          );
          break;
        }
        case Token.OpenArray:
          this.#stack.push({ kind, target: new Array(values[i] as number), index: 0 });
          break;
        default:
          this.#stack.push({ kind, target: emptyOf(kind) });
      }
    }
  }

  #attach(v: unknown): void {
    const top = this.#stack[this.#stack.length - 1];
    if (!top) {
      this.#result = v;
      this.#done = true;
      return;
    }
    switch (top.kind) {
      case Token.OpenArray:
        (top.target as unknown[])[top.index!++] = v;
        return;
      case Token.OpenSet:
        (top.target as Set<unknown>).add(v);
        return;
      case Token.OpenMap:
        if (!top.hasKey) {
          top.key = v;
          top.hasKey = true;
        } else {
          (top.target as Map<unknown, unknown>).set(top.key, v);
          top.hasKey = false;
        }
        return;
      case Token.OpenString:
        top.target = (top.target as string) + (v as string);
        return;
      case Token.OpenDecoded:
        top.target = v;
        return;
      case Token.OpenObject:
        if (top.key === "__proto__") {
          // Defined, not assigned: a `__proto__` key stays data.
          Object.defineProperty(top.target, "__proto__", {
            value: v,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else (top.target as Record<string, unknown>)[top.key as string] = v;
        return;
    }
  }

  /** The value, once every slice is in. */
  result(): unknown {
    if (!this.#done) throw new RangeError("The value is not complete");
    return this.#result;
  }
}

function emptyOf(kind: Token): unknown {
  switch (kind) {
    case Token.OpenMap:
      return new Map();
    case Token.OpenSet:
      return new Set();
    case Token.OpenString:
      return "";
    case Token.OpenDecoded:
      return undefined;
    default:
      return {};
  }
}
