import { randomBytes } from 'node:crypto';

/**
 * Object ids: random positive integers below 2^53 (JSON-safe, not guessable, never sequential).
 * The lower bound keeps ids long like the public service's (clients sometimes treat short
 * numbers as indexes).
 */
const MIN_ID = 2 ** 40;
const SPAN = 2 ** 53 - MIN_ID;

export function newId(): number {
  const b = randomBytes(7);
  // 53 random bits -> [0, 2^53)
  let n = 0;
  for (let i = 0; i < 7; i++) n = n * 256 + b[i]!;
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
  const bytes = randomBytes(len);
  let s = '';
  for (const b of bytes) s += alphabet[b % alphabet.length];
  return s;
}
