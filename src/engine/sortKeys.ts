/**
 * Fractional sort keys for stored row order. Given the new display order and the rows' current
 * keys, keep the longest run of rows whose keys are already increasing and give new keys only
 * to the others, spaced between their kept neighbours. Adding rows at the bottom or moving a
 * few rows rewrites only those rows; when the gaps run out, every row is re-keyed.
 */
export const KEY_STEP = 1024;

/** Indexes (into keys) of a longest strictly increasing subsequence; undefined keys never count. */
function longestIncreasing(keys: readonly (number | undefined)[]): Set<number> {
  const tailsIdx: number[] = [];
  const prev = new Array<number>(keys.length).fill(-1);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (k === undefined) continue;
    let lo = 0;
    let hi = tailsIdx.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[tailsIdx[mid]!]! < k) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tailsIdx[lo - 1]!;
    tailsIdx[lo] = i;
  }
  const keep = new Set<number>();
  let i = tailsIdx.length > 0 ? tailsIdx[tailsIdx.length - 1]! : -1;
  while (i >= 0) {
    keep.add(i);
    i = prev[i]!;
  }
  return keep;
}

/**
 * New keys for rows in display order: returns the keys (same order) and the indexes whose key
 * changed. `current[i]` is undefined for rows that have no key yet.
 */
export function assignSortKeys(current: readonly (number | undefined)[]): { keys: number[]; changed: number[] } {
  const n = current.length;
  const keep = longestIncreasing(current);
  const keys = new Array<number>(n);
  const changed: number[] = [];
  let i = 0;
  let lastKey: number | undefined;
  while (i < n) {
    if (keep.has(i)) {
      keys[i] = current[i]!;
      lastKey = keys[i];
      i++;
      continue;
    }
    let j = i;
    while (j < n && !keep.has(j)) j++;
    const count = j - i;
    const lo = lastKey ?? (j < n ? current[j]! - (count + 1) * KEY_STEP : 0);
    const hi = j < n ? current[j]! : lo + (count + 1) * KEY_STEP;
    const step = (hi - lo) / (count + 1);
    for (let k = 0; k < count; k++) {
      const key = lo + step * (k + 1);
      keys[i + k] = key;
      if (current[i + k] !== key) changed.push(i + k);
    }
    lastKey = keys[j - 1];
    i = j;
  }
  // Floating point gaps exhausted: keys must be strictly increasing, else re-key everything.
  for (let k = 1; k < n; k++) {
    if (!(keys[k]! > keys[k - 1]!)) {
      const all: number[] = [];
      for (let m = 0; m < n; m++) {
        keys[m] = (m + 1) * KEY_STEP;
        if (current[m] !== keys[m]) all.push(m);
      }
      return { keys, changed: all };
    }
  }
  return { keys, changed };
}
