import { sql, type Kysely } from 'kysely';
import { retryingDeadlocks, type Store } from './db.ts';

/**
 * Test mode's snapshots (services/platform/testmode.ts): the rows of every table, in memory, and putting
 * them back. For the small datasets of integration tests this is the fastest honest copy on
 * both databases (one transaction, no file juggling under an open connection).
 */
export type TableDump = Map<string, Record<string, unknown>[]>;

// Kysely's migration bookkeeping stays as it is
const SKIP = new Set(['kysely_migration', 'kysely_migration_lock']);

type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

const namesOf = new WeakMap<Store, string[]>();
const orderOf = new WeakMap<Store, string[]>();

/** The tables (the schema does not change while the server runs: known once per store). */
export async function tableNames(store: Store): Promise<string[]> {
  const known = namesOf.get(store);
  if (known) return known;
  const db = store.db as unknown as AnyDb;
  const rows = store.dialect === 'sqlite'
    // ordinary tables only: a full-text (FTS5) table and its shadow tables are rebuilt from the
    // data instead (services/platform/testmode.ts)
    ? (await sql<{ name: string }>`select name from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite_%'`.execute(db)).rows
    : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows;
  const names = rows.map((r) => r.name).filter((n) => !SKIP.has(n)).sort();
  namesOf.set(store, names);
  return names;
}

export async function dumpTables(store: Store): Promise<TableDump> {
  const names = await tableNames(store);
  const db = store.db as unknown as AnyDb;
  return db.transaction().execute(async (tx) => {
    const out: TableDump = new Map();
    for (const t of names) out.set(t, await tx.selectFrom(t).selectAll().execute());
    return out;
  });
}

/** Replaces the content of every table by the dump's, in one transaction. */
export async function restoreTables(store: Store, dump: TableDump): Promise<void> {
  const names = await tableNames(store);
  const db = store.db as unknown as AnyDb;
  // every table changes: on PostgreSQL a job worker's transaction (the search index's catch-up,
  // a delivery) may hold rows this one deletes while it waits for rows this one holds
  await retryingDeadlocks(() => db.transaction().execute(async (tx) => {
    let order = names;
    if (store.dialect === 'sqlite') {
      // parents and children come back in any order: foreign keys are checked at commit
      await sql`PRAGMA defer_foreign_keys = ON`.execute(tx);
      for (const t of names) await tx.deleteFrom(t).execute();
    } else {
      // DELETE, children first: TRUNCATE of every table takes about a second (new files for each)
      // in one round trip (a statement list without parameters)
      order = orderOf.get(store) ?? await parentsFirst(tx, names);
      orderOf.set(store, order);
      await sql.raw([...order].reverse().map((t) => `DELETE FROM "${t.replace(/"/g, '""')}"`).join('; ')).execute(tx);
    }
    for (const t of order) {
      const rows = dump.get(t);
      if (rows === undefined || rows.length === 0) continue;
      const per = Math.max(1, Math.floor(30_000 / Math.max(1, Object.keys(rows[0]!).length)));
      for (let i = 0; i < rows.length; i += per) await tx.insertInto(t).values(rows.slice(i, i + per)).execute();
    }
  }));
}

/** PostgreSQL checks foreign keys at each insert: tables whose rows others reference come first. */
async function parentsFirst(db: AnyDb, names: string[]): Promise<string[]> {
  const fks = (await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent from pg_constraint k
    join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
    join pg_namespace n on n.oid = c.relnamespace
    where k.contype = 'f' and n.nspname = current_schema()`.execute(db)).rows;
  const parents = new Map<string, Set<string>>(names.map((n) => [n, new Set()]));
  for (const f of fks) if (f.child !== f.parent) parents.get(f.child)?.add(f.parent);
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (n: string) => {
    if (seen.has(n)) return;
    seen.add(n);
    for (const p of parents.get(n) ?? []) visit(p);
    out.push(n);
  };
  for (const n of names) visit(n);
  return out;
}
