import { randomBytes } from 'node:crypto';

/**
 * Object ids: random positive integers below 2^53 (JSON-safe, not guessable, never sequential).
 * The lower bound keeps ids long like the public service's (clients sometimes treat short
 * numbers as indexes).
 */
const MIN_ID = 2 ** 40;
const SPAN = 2 ** 53 - MIN_ID;

export function newId(): number {
  return idAt(randomBytes(7), 0);
}

/** `count` new ids (as newId), from one call for random bytes. */
export function newIds(count: number): number[] {
  const b = randomBytes(7 * count);
  const out = new Array<number>(count);
  for (let k = 0; k < count; k++) out[k] = idAt(b, 7 * k);
  return out;
}

function idAt(b: Buffer, at: number): number {
  // 56 random bits -> [0, 2^53)
  let n = 0;
  for (let i = at; i < at + 7; i++) n = n * 256 + b[i]!;
  n = n % 2 ** 53;
  return MIN_ID + (n % SPAN);
}

/** A raw API token: 37 characters of [a-z0-9], like the public service's generated tokens. */
export function newRawToken(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(37);
  let s = '';
  for (const b of bytes) s += alphabet[b % 36];
  return s;
}

/** A random opaque string of the given length, for event ids, ref ids, secrets. */
export function randomString(len: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
  return stringAt(randomBytes(len), 0, len, alphabet);
}

/** `count` random strings (as randomString), from one call for random bytes. */
export function randomStrings(count: number, len: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string[] {
  const bytes = randomBytes(len * count);
  const out = new Array<string>(count);
  for (let k = 0; k < count; k++) out[k] = stringAt(bytes, k * len, len, alphabet);
  return out;
}

function stringAt(bytes: Buffer, at: number, len: number, alphabet: string): string {
  let s = '';
  for (let i = at; i < at + len; i++) s += alphabet[bytes[i]! % alphabet.length];
  return s;
}
