import type { ChangeEvent } from './events.ts';

/**
 * A change event names the rows a write changed; the rows whose stored values changed with it
 * (formula results, those the write found stale among them: TODAY() on a new day, a cross-sheet
 * source committed since) are listed under this key in the details of the write's last ROW
 * event. The change stream sends them with the change; the events API and webhooks do not show
 * keys starting with "_" (publicDetails).
 */
export const RECOMPUTED_KEY = '_recomputed';
/** A change event carries at most this many recomputed rows; past that it says so and a client reads the sheet again. */
export const MAX_RECOMPUTED = 2000;

/** The events of a write, its recomputed rows noted on its last ROW event (none: the events as they are). */
export function withRecomputed(events: readonly ChangeEvent[], changes: { updated: ReadonlySet<number>; added: ReadonlySet<number>; deleted: ReadonlySet<number> }): ChangeEvent[] {
  const named = new Set<number>();
  let last = -1;
  events.forEach((e, i) => {
    if (e.objectType !== 'ROW') return;
    named.add(e.objectId);
    last = i;
  });
  if (last < 0) return [...events];
  const ids = [...changes.updated].filter((id) => !named.has(id) && !changes.added.has(id) && !changes.deleted.has(id));
  if (ids.length === 0) return [...events];
  const out = [...events];
  const e = out[last]!;
  out[last] = { ...e, details: { ...e.details, [RECOMPUTED_KEY]: ids.length > MAX_RECOMPUTED ? 'many' : ids } };
  return out;
}

/** An event's details as the events API and webhooks show them: internal keys ("_...") left out. */
export function publicDetails(d: unknown): unknown {
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return d;
  const keys = Object.keys(d);
  if (!keys.some((k) => k.startsWith('_'))) return d;
  return Object.fromEntries(Object.entries(d).filter(([k]) => !k.startsWith('_')));
}
