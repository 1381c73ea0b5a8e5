/**
 * The shapes every request body is checked against before anything reads it: objects, lists of
 * objects, ids, and text the databases can store. Services and the engine share these so that
 * one kind of bad input always gets one catalogued answer.
 */
import { InvalidInput } from './errors.ts';

export type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The body (or an element of it) as an object; anything else answers 1008. */
export function asObject(body: unknown, what: string): Obj {
  if (!isObject(body)) throw new InvalidInput(1008, `expected ${what}`);
  return body;
}

/**
 * A bulk body: one object or an array of them. A null element answers 1177 (spec: arrays may
 * not contain null elements), any other non-object element 1008.
 */
export function objectList(body: unknown, what: string): { list: Obj[]; single: boolean } {
  if (isObject(body)) return { list: [body], single: true };
  if (!Array.isArray(body)) throw new InvalidInput(1008, `expected ${what} or an array of them`);
  for (const x of body) {
    if (x === null) throw new InvalidInput(1177);
    if (!isObject(x)) throw new InvalidInput(1008, `expected ${what} or an array of them`);
  }
  return { list: body as Obj[], single: false };
}

/** An array attribute whose elements must be objects (members, cells, sortCriteria, ...). */
export function objectArray(v: unknown, attr: string): Obj[] {
  if (!Array.isArray(v)) throw new InvalidInput(1031, describe(v), attr);
  for (const x of v) {
    if (x === null) throw new InvalidInput(1176, attr);
    if (!isObject(x)) throw new InvalidInput(1031, describe(x), attr);
  }
  return v as Obj[];
}

/**
 * Ids are positive integers below 2^53 (the JSON-safe range every id is drawn from). Anything
 * else (1.5, -1, 2^63, a string) names no object and must never reach a query: PostgreSQL
 * refuses such numbers for a bigint column with an error rather than finding nothing.
 */
export function isId(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

/** An id attribute of a body: 1031 unless it is an id. */
export function bodyId(v: unknown, attr: string): number {
  if (!isId(v)) throw new InvalidInput(1031, describe(v), attr);
  return v;
}

/** The same for an attribute that may be absent or null (null then). */
export function optionalBodyId(b: Obj, attr: string): number | null {
  const v = b[attr];
  if (v === undefined || v === null) return null;
  return bodyId(v, attr);
}

/** A boolean attribute: 1031 (the value as `describe` shows it) unless it is true or false. */
export function bodyBool(v: unknown, attr: string): boolean {
  if (typeof v !== 'boolean') throw new InvalidInput(1031, describe(v), attr);
  return v;
}

/** The same for an attribute that may be absent or null (undefined then). */
export function optionalBodyBool(v: unknown, attr: string): boolean | undefined {
  return v === undefined || v === null ? undefined : bodyBool(v, attr);
}

/** A value as a message shows it: JSON, so that control characters and objects stay readable. */
export function describe(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

// Text the databases cannot store: NUL (PostgreSQL refuses it in text) and UTF-16 surrogates
// (UTF-8 cannot encode an unpaired one). A hit is checked precisely: paired surrogates are fine.
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const SUSPECT = /[\u0000\ud800-\udfff]/;

/** True when the string holds NUL or an unpaired surrogate. */
export function isBadText(s: string): boolean {
  if (!SUSPECT.test(s)) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) return true;
    if (c >= 0xd800 && c <= 0xdbff) {
      const n = s.charCodeAt(i + 1);
      if (n >= 0xdc00 && n <= 0xdfff) i++;
      else return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return true;
    }
  }
  return false;
}

/**
 * The path ("cells[0].value", "key of rows[1]") of the first string or object key in a parsed
 * JSON value that holds bad text, or null. One pass, no allocation unless something is found.
 */
export function findBadText(v: unknown): string | null {
  if (typeof v === 'string') return isBadText(v) ? '' : null;
  if (typeof v !== 'object' || v === null) return null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = findBadText(v[i]);
      if (p !== null) return `[${i}]${p}`;
    }
    return null;
  }
  for (const k in v) {
    if (isBadText(k)) return ` (a key)`;
    const p = findBadText((v as Obj)[k]);
    if (p !== null) return `.${k}${p}`;
  }
  return null;
}

/** Raw JSON text that may hold bad text: a \u escape of NUL or of a surrogate (JSON.parse
 * refuses raw control characters, and decoded UTF-8 holds no lone surrogate). */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** Refuses (1008) a parsed JSON body holding NUL or an unpaired surrogate; cheap when clean. */
export function assertJsonText(text: string, parsed: unknown): void {
  if (!SUSPECT_ESCAPE.test(text)) return;
  const at = findBadText(parsed);
  if (at !== null) throw new InvalidInput(1008, `the text at body${at} holds a NUL character or an unpaired UTF-16 surrogate`);
}
