/**
 * A small, fast, seedable PRNG (sfc32) and the Kombo-style id alphabet. Generation of 100,000
 * applications draws millions of numbers, so this avoids faker's per-call overhead while keeping
 * "same seed ⇒ same data" exact.
 */
import { randomBytes } from "node:crypto";

export class Random {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number | string) {
    // Spread the seed over 128 bits with cyrb128, then warm the generator up.
    const h = cyrb128(String(seed));
    this.#a = h[0];
    this.#b = h[1];
    this.#c = h[2];
    this.#d = h[3];
    for (let i = 0; i < 15; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks by weight: `weights[i]` is the relative weight of `items[i]`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return items[i] as T;
    }
    return items[items.length - 1] as T;
  }

  /** A 24-character base58 id, as Kombo's ids look. */
  id(): string {
    // Built from char codes: `+=` would leave a 24-node rope per id (hundreds of bytes each).
    for (let i = 0; i < 24; i++) CODES[i] = ALPHABET_CODES[Math.floor(this.next() * 58)]!;
    return String.fromCharCode(...CODES);
  }
}

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const ALPHABET_CODES = [...ALPHABET].map((c) => c.charCodeAt(0));
const CODES: number[] = new Array<number>(24).fill(0);

/** A fresh random 24-character id for records created at run time (not part of the seed). */
export function newId(): string {
  // Rejection sampling keeps the 58 characters equally likely (256 is not a multiple of 58).
  const out: number[] = [];
  while (out.length < 24) {
    for (const b of randomBytes(32)) if (b < 232 && out.length < 24) out.push(ALPHABET_CODES[b % 58]!);
  }
  return String.fromCharCode(...out);
}

function cyrb128(str: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < str.length; i++) {
    const k = str.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}
