/**
 * A function making `{ [keys[0]]: values[0], [keys[1]]: values[1], ... }` from an object literal
 * compiled once for `keys`. Every object it makes has the same shape (V8's fast properties),
 * where one built a key at a time becomes a hash table past about a dozen keys, and building it
 * is one step instead of one per key. Keys are quoted as JSON, so any text is a plain key, except
 * "__proto__", which in a literal sets the prototype: no maker then (undefined). A repeated key
 * keeps its last value, as assignments would.
 */
export function literalMaker(keys: readonly string[]): ((values: readonly unknown[]) => Record<string, unknown>) | undefined {
  if (keys.includes('__proto__')) return undefined;
  return new Function('v', `return {${keys.map((k, i) => `${JSON.stringify(k)}: v[${i}]`).join(', ')}};`) as (values: readonly unknown[]) => Record<string, unknown>;
}
