/**
 * A value cut into slices that each cost the receiving thread a bounded
 * amount of work. A big value posted from a Worker in one message is
 * deserialized by the receiver in one synchronous stretch (measured here:
 * 0.2-0.35 s for a 60 MB string, 2.5 s for 3 million small objects), so a
 * big frame parsed off the main thread would still stall it on arrival.
 * Cut into slices of at most {@link SLICE_UNITS}, each slice is one message
 * and the main thread gets a turn between any two.
 *
 * A slice is a token stream: `kinds[i]` says what `values[i]` is. Subtrees
 * small enough travel whole (structured clone rebuilds them natively); big
 * containers are opened, filled and closed; big strings travel in pieces
 * and are joined by `+`, which V8 does in constant time (a rope).
 *
 * @module
 */
import { Predecoded } from "./codec.ts";

/** What a token is. */
export const Token = {
  /** `values[i]` is the whole value. */
  Leaf: 0,
  OpenArray: 1,
  OpenObject: 2,
  OpenMap: 3,
  OpenSet: 4,
  /** A string in pieces: each child is a string leaf. */
  OpenString: 5,
  /** A {@link Predecoded} box around its one child. */
  OpenDecoded: 6,
  Close: 7,
  /** `values[i]` is the key of the next child of an object. */
  Key: 8,
  /** `values[i]` is `{ name, message }` of a decode failure: a failed {@link Predecoded} box. */
  DecodeFailure: 9,
} as const;
/** A token's kind. */
export type Token = typeof Token[keyof typeof Token];

/** One message's worth of tokens. */
export interface Slice {
  kinds: Uint8Array;
  values: unknown[];
}

/**
 * The most work one slice may cost the receiver, in units: one per value
 * or container, one per {@link CHARS_PER_UNIT} characters of string. At
 * 16,384 a slice is about 1 ms to deserialize and rebuild (measured here),
 * far under the 50 ms the host's event loop may be held.
 */
export const SLICE_UNITS = 16_384;

/**
 * Characters of a string that cost one unit. Copying characters is cheap
 * next to building objects: a 1 MiB piece costs about what 16,384 small
 * values do.
 */
export const CHARS_PER_UNIT = 64;

/** A subtree up to this many units travels whole, as one leaf. */
export const WHOLE_SUBTREE_UNITS = 1_024;

const PIECE_CHARS = SLICE_UNITS * CHARS_PER_UNIT;

/**
 * Cuts `value` (a decoded value: plain data, `Map`, `Set`, `Date`,
 * `Uint8Array`, `bigint`, a `Predecoded` box) into slices, made one at a
 * time so the sender can post each as it comes. A slice's `transfer` lists
 * the buffers of its byte arrays, so they move instead of being copied.
 */
export function* sliceValue(value: unknown): Generator<Slice & { transfer: ArrayBuffer[] }> {
  const big = new Set<object>();
  measure(value, big);
  let kinds: number[] = [];
  let values: unknown[] = [];
  let transfer: ArrayBuffer[] = [];
  let units = 0;
  const ready: (Slice & { transfer: ArrayBuffer[] })[] = [];
  const emit = (kind: Token, v: unknown, cost: number, buffers?: ArrayBuffer[]) => {
    if (units + cost > SLICE_UNITS && kinds.length > 0) {
      ready.push({ kinds: Uint8Array.from(kinds), values, transfer });
      kinds = [];
      values = [];
      transfer = [];
      units = 0;
    }
    kinds.push(kind);
    values.push(v);
    if (buffers) transfer.push(...buffers);
    units += cost;
  };
  // A stack of iterators instead of recursion, so slices can be yielded as they fill.
  type Frame = { items: Iterator<[string | undefined, unknown]> };
  const stack: Frame[] = [];
  const open = (v: unknown): Frame | undefined => {
    if (typeof v === "string") {
      if (v.length <= PIECE_CHARS) return void emit(Token.Leaf, v, stringUnits(v));
      emit(Token.OpenString, null, 1);
      for (let i = 0; i < v.length; i += PIECE_CHARS) {
        const piece = v.slice(i, i + PIECE_CHARS);
        emit(Token.Leaf, piece, stringUnits(piece));
      }
      return void emit(Token.Close, null, 1);
    }
    if (v === null || typeof v !== "object") return void emit(Token.Leaf, v, 1);
    if (v instanceof Predecoded) {
      const failure = v.failure;
      if (failure) return void emit(Token.DecodeFailure, failure, 1);
      emit(Token.OpenDecoded, null, 1);
      return { items: [[undefined, v.value] as [undefined, unknown]][Symbol.iterator]() };
    }
    if (!big.has(v)) {
      const buffers: ArrayBuffer[] = [];
      collectBuffers(v, buffers);
      // Measured again: it is small, so this costs at most WHOLE_SUBTREE_UNITS.
      return void emit(Token.Leaf, v, measure(v, big), buffers);
    }
    if (Array.isArray(v)) {
      // The length goes first: filling a preallocated array never copies it (growing
      // one by push copied 8 million elements in single 250-300 ms stretches here).
      emit(Token.OpenArray, v.length, 1);
      return { items: pairsOf(v) };
    }
    if (v instanceof Map) {
      emit(Token.OpenMap, null, 1);
      return { items: pairsOf(mapItems(v)) };
    }
    if (v instanceof Set) {
      emit(Token.OpenSet, null, 1);
      return { items: pairsOf(v) };
    }
    emit(Token.OpenObject, null, 1);
    return { items: objectPairs(v as Record<string, unknown>) };
  };
  const first = open(value);
  if (first) stack.push(first);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const next = top.items.next();
    if (next.done) {
      stack.pop();
      emit(Token.Close, null, 1);
    } else {
      const [key, item] = next.value;
      if (key !== undefined) emit(Token.Key, key, stringUnits(key));
      const child = open(item);
      if (child) stack.push(child);
    }
    while (ready.length > 0) yield ready.shift()!;
  }
  if (kinds.length > 0) yield { kinds: Uint8Array.from(kinds), values, transfer };
}

function* pairsOf(items: Iterable<unknown>): Iterator<[undefined, unknown]> {
  for (const item of items) yield [undefined, item];
}

function* mapItems(map: Map<unknown, unknown>): Iterable<unknown> {
  for (const [k, v] of map) {
    yield k;
    yield v;
  }
}

function* objectPairs(obj: Record<string, unknown>): Iterator<[string, unknown]> {
  for (const key of Object.keys(obj)) yield [key, obj[key]];
}

function stringUnits(s: string): number {
  return 1 + Math.floor(s.length / CHARS_PER_UNIT);
}

/**
 * The units of `v`, capped just past {@link WHOLE_SUBTREE_UNITS}; every
 * container over the cap goes into `big`. One pass, linear in the value.
 */
function measure(v: unknown, big: Set<object>): number {
  if (typeof v === "string") return stringUnits(v);
  if (v === null || typeof v !== "object") return 1;
  if (v instanceof Predecoded) {
    // Always opened: the receiver must box what it rebuilds.
    big.add(v);
    measure(v.value, big);
    return WHOLE_SUBTREE_UNITS + 1;
  }
  if (v instanceof Uint8Array || v instanceof Date) return 1;
  let units = 1;
  const add = (child: unknown) => {
    units += measure(child, big);
  };
  if (Array.isArray(v) || v instanceof Set) { for (const item of v) add(item); }
  else if (v instanceof Map) {
    for (const [k, item] of v) {
      add(k);
      add(item);
    }
  } else {
    for (const key of Object.keys(v)) {
      units += stringUnits(key);
      add((v as Record<string, unknown>)[key]);
    }
  }
  if (units > WHOLE_SUBTREE_UNITS) {
    big.add(v);
    return WHOLE_SUBTREE_UNITS + 1;
  }
  return units;
}

/** Lists the buffers of the byte arrays inside a small subtree. */
function collectBuffers(v: unknown, transfer: ArrayBuffer[]): void {
  if (v === null || typeof v !== "object") return;
  if (v instanceof Uint8Array) {
    transfer.push(v.buffer as ArrayBuffer);
    return;
  }
  if (v instanceof Date) return;
  if (v instanceof Map) {
    for (const [k, item] of v) {
      collectBuffers(k, transfer);
      collectBuffers(item, transfer);
    }
  } else if (Array.isArray(v) || v instanceof Set) {
    for (const item of v) collectBuffers(item, transfer);
  } else {for (const key of Object.keys(v)) {
      collectBuffers((v as Record<string, unknown>)[key], transfer);
    }}
}
