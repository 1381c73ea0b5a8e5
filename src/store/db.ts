import fs from 'node:fs';
import path from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { DB } from './schema.ts';
import { migrationProvider } from './migrations/index.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<DB>;
  dialect: Dialect;
  /** How long a sheet write waits for the sheet's lock before giving up (PostgreSQL). */
  lockTimeoutMs: number;
  close(): Promise<void>;
}

export type Tx = Transaction<DB>;
export type Queryable = Kysely<DB> | Tx;

// 64-bit integers (ids, epoch ms) are below 2^53: read them as numbers, not strings.
pg.types.setTypeParser(20, (v: string) => Number(v));

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

/** Opens the database the configuration names and applies pending migrations. */
export async function openStore(opts: { databaseUrl?: string | undefined; dataDir: string; lockTimeoutMs?: number }): Promise<Store> {
  let store: Store;
  if (opts.databaseUrl !== undefined && opts.databaseUrl !== '') {
    if (!isPostgresUrl(opts.databaseUrl)) throw new Error('DATABASE_URL must be a postgres:// URL');
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    store = { db, dialect: 'postgres', lockTimeoutMs: opts.lockTimeoutMs ?? 10_000, close: () => db.destroy() };
  } else {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const sqlite = new Database(path.join(opts.dataDir, 'sheetd.db'));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cachingStatements(sqlite) }) });
    store = { db, dialect: 'sqlite', lockTimeoutMs: opts.lockTimeoutMs ?? 10_000, close: () => db.destroy() };
  }
  await migrate(store);
  return store;
}

/**
 * better-sqlite3 compiles a statement on every prepare(); Kysely prepares on every query.
 * Keeping the prepared statements of the most recent SQL texts halves the cost of small queries.
 */
function cachingStatements(sqlite: Database.Database) {
  const cache = new Map<string, Database.Statement>();
  const MAX = 500;
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string) {
      let stmt = cache.get(sqlText);
      if (stmt === undefined) {
        stmt = sqlite.prepare(sqlText);
        if (cache.size >= MAX) cache.delete(cache.keys().next().value!);
        cache.set(sqlText, stmt);
      }
      return stmt;
    },
  };
}

export async function migrate(store: Store): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${String(error)}`);
  }
}
