import { sql } from 'kysely';
import type { Store } from '../../src/store/db.ts';
import { sequenceEvents } from '../../src/store/events.ts';

/**
 * Tables whose rows background work changes on its own: the job worker claims, retries and
 * deletes jobs whenever they are due, and catches the search index up with the change log
 * (search_docs, search_index_state and, on SQLite, the FTS5 table search_fts and its shadow
 * tables). They are left out of snapshots; `jobsCreatedSince` tells whether a request added a job.
 */
const BACKGROUND_TABLES = new Set(['jobs']);
const isBackground = (name: string) => BACKGROUND_TABLES.has(name) || name.startsWith('search_');

/**
 * Every table of the server's database as one string (tables by name, rows sorted by their
 * JSON), so that two snapshots compare equal exactly when no row was added, removed or changed.
 * Works on SQLite and PostgreSQL alike: the table list comes from Kysely's introspection.
 * Committed events get their stream position first (the sequencer would give it at any moment),
 * so a position given between two snapshots is not mistaken for a change.
 */
export async function snapshotDatabase(store: Store): Promise<string> {
  await sequenceEvents(store);
  const tables = (await store.db.introspection.getTables())
    .map((t) => t.name)
    // the migrator's own bookkeeping is not the application's state
    .filter((n) => !n.startsWith('kysely_') && !isBackground(n))
    .sort();
  const rowsOf = new Map<string, string[]>(tables.map((n) => [n, []]));
  if (store.dialect === 'postgres') {
    // one round trip for every table: the fuzz takes a snapshot after each mutating request
    const parts = tables.map((n) => sql`select ${n}::text as t, row_to_json(x)::text as r from ${sql.table(n)} x`);
    const { rows } = await sql<{ t: string; r: string }>`${sql.join(parts, sql` union all `)}`.execute(store.db);
    for (const r of rows) rowsOf.get(r.t)!.push(r.r);
  } else {
    for (const name of tables) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(store.db);
      rowsOf.set(name, rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))));
    }
  }
  const out: string[] = [];
  for (const [name, lines] of rowsOf) {
    lines.sort();
    out.push(`## ${name} (${lines.length})`, ...lines);
  }
  return out.join('\n');
}

/** The lines that differ between two snapshots, for a readable assertion message. */
export function snapshotDiff(before: string, after: string, max = 10): string {
  const a = new Set(before.split('\n'));
  const b = new Set(after.split('\n'));
  const gone = [...a].filter((l) => !b.has(l)).slice(0, max).map((l) => `- ${l}`);
  const added = [...b].filter((l) => !a.has(l)).slice(0, max).map((l) => `+ ${l}`);
  return [...gone, ...added].join('\n');
}

/** How many jobs were created at or after `since` (epoch ms). */
export async function jobsCreatedSince(store: Store, since: number): Promise<number> {
  const r = await store.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('created_at', '>=', since).executeTakeFirstOrThrow();
  return Number(r.n);
}
