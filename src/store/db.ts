import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CompiledQuery, Kysely, Migrator, PostgresAdapter, PostgresDialect, SqliteDialect, type DatabaseConnection, type Driver, type Insertable, type QueryCompiler, type TransactionSettings, type PostgresCursor, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult, type Transaction } from 'kysely';
import Database from 'better-sqlite3';
import type pg from 'pg';
import type pino from 'pino';
import type { DB } from './schema.ts';
import { migrationProvider } from './migrations/index.ts';
import { literalMaker } from '../engine/literals.ts';

/**
 * The journal and durability settings of the embedded database (also those of the benchmark's
 * raw-insert baseline, so that it pays for the same syncs): WAL, synced at checkpoints, not at
 * every commit.
 */
export function sqliteJournal(sqlite: Database.Database): void {
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  // Checkpoint when the WAL holds ~40 MB, not the default ~4 MB: adding 500 rows of a large
  // sheet writes ~1,000 pages, so the default checkpoint (and its fsync) ran on nearly every
  // row write; the WAL file is cut back to 64 MB after a checkpoint of a larger one.
  sqlite.pragma('wal_autocheckpoint = 10000');
  sqlite.pragma('journal_size_limit = 67108864');
}

export type { Dialect } from './dialect.ts';
import type { Dialect } from './dialect.ts';

export interface Store {
  db: Kysely<DB>;
  dialect: Dialect;
  /** How long a sheet write waits for the sheet's lock before giving up (PostgreSQL). */
  lockTimeoutMs: number;
  /** PostgreSQL: the connection pool's counts (for /metrics); SQLite has one connection and no pool. */
  poolStats?(): { total: number; idle: number; waiting: number };
  /**
   * The server's log (server.ts gives its logger; the CLI and test helpers none): where the layers
   * above note what they do not answer, such as a row the search index leaves out.
   */
  logger?: pino.Logger;
  close(): Promise<void>;
}

export type Tx = Transaction<DB>;
export type Queryable = Kysely<DB> | Tx;

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

/**
 * Creates the data directory owner-only (0700) whatever the umask. An existing directory keeps
 * its mode (an operator may share it on purpose): see looseDataDirMode.
 */
export function ensureDataDir(dir: string): void {
  if (fs.mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) fs.chmodSync(dir, 0o700);
}

/** The mode of an existing data directory that its group or others may enter, else null. */
export function looseDataDirMode(dir: string): number | null {
  let mode: number;
  try {
    mode = fs.statSync(dir).mode & 0o777;
  } catch {
    return null;
  }
  return (mode & 0o077) !== 0 ? mode : null;
}

/** A trivial read: answers when the database does (GET /health). */
export async function ping(db: Queryable): Promise<void> {
  await db.selectFrom('orgs').select('id').limit(1).execute();
}

/** Opens the database the configuration names and applies pending migrations. */
export async function openStore(opts: {
  databaseUrl?: string | undefined;
  dataDir: string;
  lockTimeoutMs?: number;
  /** Told when an idle PostgreSQL connection fails (server restart, failover, admin kill). */
  onConnectionError?: (err: Error) => void;
  /** The server's log, kept as `store.logger`. */
  logger?: pino.Logger | undefined;
  /**
   * A second store of a process whose first one applied the migrations (the search index's
   * thread): no migrations, no planner statistics, a pool of 2 on PostgreSQL.
   */
  secondary?: boolean;
}): Promise<Store> {
  let store: Store;
  // SQLite: planner statistics once the schema is current
  let afterMigrations = (): void => {};
  if (opts.databaseUrl !== undefined && opts.databaseUrl !== '') {
    if (!isPostgresUrl(opts.databaseUrl)) throw new Error('DATABASE_URL must be a postgres:// URL');
    // loaded here: a server on SQLite does not hold the driver's code (about 3 MB of heap)
    const { default: pg } = await import('pg');
    // 64-bit integers (ids, epoch ms) are below 2^53: read them as numbers, not strings.
    pg.types.setTypeParser(20, (v: string) => Number(v));
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.secondary ? 2 : 10 });
    // An idle connection that the server ends (restart, failover, pg_terminate_backend) is an
    // 'error' of the pool: without a listener that would crash the process. The pool drops the
    // connection and opens a new one when next needed.
    pool.on('error', (err) => opts.onConnectionError?.(err));
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: copyingPool(pool) }) });
    directPools.set(db, pool);
    store = {
      db,
      dialect: 'postgres',
      lockTimeoutMs: opts.lockTimeoutMs ?? 10_000,
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      ...(opts.logger ? { logger: opts.logger } : {}),
      close: () => db.destroy(),
    };
  } else {
    ensureDataDir(opts.dataDir);
    const file = path.join(opts.dataDir, 'sheetd.db');
    // SQLite creates its files 0644 and the -wal and -shm files with the mode of the database
    // file: an owner-only database file, made before SQLite opens it, keeps all three private.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    fs.chmodSync(file, 0o600);
    const sqlite = new Database(file);
    sqliteJournal(sqlite);
    // -wal and -shm left by an older sheetd with the old modes
    for (const extra of [`${file}-wal`, `${file}-shm`]) if (fs.existsSync(extra)) fs.chmodSync(extra, 0o600);
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_MS}`);
    const writes = { count: 0 };
    const db = new Kysely<DB>({ dialect: new WaitingSqliteDialect({ database: cachingStatements(sqlite, writes) }) });
    const dataVersion = sqlite.prepare('pragma data_version').pluck();
    // another process's commits are asked of SQLite once per read epoch (see newReadEpoch)
    let seenEpoch = -1;
    let version: number | undefined;
    // the stamp is one counter (no string per read): this process's statements that may write,
    // and one more each time SQLite's data_version shows another process's commit
    changeStamps.set(db, () => {
      if (seenEpoch !== readEpoch) {
        seenEpoch = readEpoch;
        const v = dataVersion.get() as number;
        if (v !== version) {
          version = v;
          writes.count++;
        }
      }
      return writes.count;
    });
    // Statistics for the query planner, as SQLite advises for a long-lived connection: at open
    // (0x10002: every table, analysed where it would help) and then once an hour (tables whose
    // size changed much since). Without them SQLite guesses each index's selectivity and can
    // read a whole sheet's rows through (sheet_id, sort_key) to find 500 of them by id.
    // (Kysely's transactions span awaits on the one connection: an hour with one open skips.)
    const optimizer = setInterval(() => {
      if (opts.secondary) return;
      if (sqlite.inTransaction) return;
      try {
        sqlite.pragma('optimize');
      } catch {
        // busy or read-only: statistics wait for the next hour
      }
    }, 3_600_000);
    optimizer.unref();
    store = {
      db, dialect: 'sqlite', lockTimeoutMs: opts.lockTimeoutMs ?? 10_000,
      ...(opts.logger ? { logger: opts.logger } : {}),
      close: () => {
        clearInterval(optimizer);
        return db.destroy();
      },
    };
    afterMigrations = () => {
      if (opts.secondary) return;
      try {
        sqlite.pragma('optimize=0x10002');
      } catch {
        // a database that cannot be written now (busy, read-only) starts without fresh statistics
      }
    };
  }
  if (!opts.secondary) await migrate(store);
  afterMigrations();
  return store;
}

/** How long a statement waits for SQLite's write lock held by another connection before it fails with SQLITE_BUSY. */
const SQLITE_BUSY_MS = 5000;

/**
 * A transaction of this connection that finds SQLite's write lock held by another connection
 * (the search index's thread, services/log/indexThread.ts; a sheetd CLI on the same file) waits
 * for it in turns of the event loop, trying again after 1, 2, 4, 8 then every 16 ms, up to
 * SQLITE_BUSY_MS; in SQLite's busy handler it waited asleep, and every request of the process
 * with it. While it waits, the connection serves other statements (reads need no lock in WAL
 * mode). cachingStatements begins a transaction without the busy handler (see BEGIN).
 */
class WaitingSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    return new WaitingSqliteDriver(super.createDriver());
  }
}

/**
 * Kysely's SQLite driver with the waits above. Its one connection is taken from the inner driver
 * once and handed out under this driver's own lock, which a transaction waiting to begin lets go.
 */
class WaitingSqliteDriver implements Driver {
  private connection: DatabaseConnection | undefined;
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;
  constructor(private readonly inner: Driver) {}

  async init(): Promise<void> {
    await this.inner.init();
    this.connection = await this.inner.acquireConnection();
  }

  private async lock(): Promise<void> {
    while (this.held !== undefined) await this.held;
    this.held = new Promise((r) => (this.release = r));
  }

  private unlock(): void {
    const release = this.release;
    this.held = undefined;
    this.release = undefined;
    release?.();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.lock();
    return this.connection!;
  }

  async releaseConnection(): Promise<void> {
    this.unlock();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const until = performance.now() + SQLITE_BUSY_MS;
    for (let wait = 1; ; wait = Math.min(wait * 2, 16)) {
      try {
        return await this.inner.beginTransaction(connection, settings);
      } catch (e) {
        if ((e as { code?: unknown }).code !== 'SQLITE_BUSY' || performance.now() >= until) throw e;
      }
      // no transaction is open: the connection is free for others meanwhile
      this.unlock();
      await new Promise((r) => setTimeout(r, wait));
      await this.lock();
    }
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint!(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint!(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint!(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** What Kysely's SQLite driver sends to begin a transaction (cachingStatements). */
const BEGIN = 'begin';

/**
 * better-sqlite3 compiles a statement on every prepare(); Kysely prepares on every query.
 * Keeping the prepared statements of the most recent SQL texts halves the cost of small queries.
 * Reads also skip better-sqlite3's row objects, which it builds property by property in C++: rows
 * come as arrays and become objects through a function made once per statement (an object
 * literal of its columns, so every row has one shape), about 40% less per row read.
 */
function cachingStatements(sqlite: Database.Database, writes: { count: number }) {
  const cache = new Map<string, CachedStatement>();
  const MAX = 500;
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      // Transactions take the write lock when they begin (Kysely begins them deferred). Another
      // process on the file (the sheetd CLI beside a running server) then waits for it, under
      // busy_timeout. Begun deferred, a transaction that read before it wrote failed at once
      // with SQLITE_BUSY_SNAPSHOT when the other process committed in between: `sheetd webhook
      // disable` failed so while the server's job worker caught the search index up.
      const sqlText = text === BEGIN ? 'begin immediate' : text;
      let stmt = cache.get(sqlText);
      if (stmt === undefined) {
        stmt = text === BEGIN ? beginWithoutWaiting(sqlite) : cachedStatement(sqlite.prepare(sqlText), writes);
        if (cache.size >= MAX) cache.delete(cache.keys().next().value!);
        cache.set(sqlText, stmt);
      }
      return stmt;
    },
  };
}

/**
 * SQLite: the parameters of many runs of one statement, given to executeQuery as its one
 * parameter: the store's statements (cachingStatements) run it once for each, in one call, where
 * a query each went through the query executor and its promise (updateManyById: 500 rows).
 */
class RunEach {
  constructor(readonly parameters: ReadonlyArray<readonly unknown[]>) {}
}

/**
 * `begin immediate` with the busy handler off: when another connection holds the write lock it
 * fails at once with SQLITE_BUSY, and WaitingSqliteDialect waits and tries again.
 */
function beginWithoutWaiting(sqlite: Database.Database): CachedStatement {
  const begin = sqlite.prepare('begin immediate');
  const noWait = sqlite.prepare('pragma busy_timeout = 0');
  const wait = sqlite.prepare(`pragma busy_timeout = ${SQLITE_BUSY_MS}`);
  return {
    reader: false,
    all: () => [],
    run: () => {
      noWait.get();
      try {
        return begin.run();
      } finally {
        wait.get();
      }
    },
    iterate: () => [][Symbol.iterator](),
  };
}

/** What Kysely's SQLite driver uses of a statement. */
interface CachedStatement {
  readonly reader: boolean;
  all(parameters: ReadonlyArray<unknown>): unknown[];
  run(parameters: ReadonlyArray<unknown>): Database.RunResult;
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown>;
}

function cachedStatement(stmt: Database.Statement, writes: { count: number }): CachedStatement {
  if (!stmt.reader) {
    // every statement that may write counts (see changeStamps)
    return {
      reader: false,
      all: (parameters) => stmt.all(parameters),
      run: (parameters) => {
        if (!stmt.readonly) writes.count++;
        const each = parameters.length === 1 ? parameters[0] : undefined;
        if (each instanceof RunEach) {
          let changes = 0;
          for (const p of each.parameters) changes += stmt.run(p).changes;
          return { changes, lastInsertRowid: 0 };
        }
        return stmt.run(parameters);
      },
      iterate: (parameters) => stmt.iterate(parameters),
    };
  }
  const counts = !stmt.readonly; // INSERT ... RETURNING and the like
  // the column names are the statement's own (SQL aliases); a column "__proto__" has no maker
  // (it would set the prototype) and such a statement keeps better-sqlite3's objects
  const toObject = literalMaker(stmt.columns().map((c) => c.name)) as ((r: unknown[]) => unknown) | undefined;
  if (toObject === undefined) {
    return {
      reader: true,
      all: (parameters) => {
        if (counts) writes.count++;
        return stmt.all(parameters);
      },
      run: (parameters) => stmt.run(parameters),
      iterate: (parameters) => stmt.iterate(parameters),
    };
  }
  const rawStmt = stmt.raw(true);
  return {
    reader: true,
    all: (parameters) => {
      if (counts) writes.count++;
      return (rawStmt.all(parameters) as unknown[][]).map(toObject);
    },
    run: (parameters) => rawStmt.run(parameters),
    *iterate(parameters) {
      for (const r of rawStmt.iterate(parameters) as IterableIterator<unknown[]>) yield toObject(r);
    },
  };
}

/**
 * SQLite databases' change stamps: a stamp changes whenever the database may have changed since
 * it was taken, by a statement of this process that may write (counted as it runs) or a commit
 * of another process (SQLite's data_version, e.g. the sheetd CLI). None for PostgreSQL (other
 * processes write without telling) nor for a transaction (a Transaction is not its database).
 */
const changeStamps = new WeakMap<object, () => number>();

/**
 * Asking SQLite whether another process committed (`pragma data_version`) took a fifth of the
 * CPU of GET /users/me: three stamped reads a request. It is asked once per read epoch instead.
 * A new epoch begins when the job worker wakes, and when a request arrives, except that the
 * requests of other connections arriving in the same turn of the event loop share one: every
 * connection read in a turn had bytes waiting before the turn began, that is before any of its
 * requests asked SQLite, so each of those requests still sees what other processes committed
 * before it was sent. A second request of one connection in a turn (pipelined, read after the
 * first one asked) begins a new epoch. About 5 requests shared each check under 10 connections,
 * and a server saturated by a client in another process answered /users/me about 9% faster
 * (docs/speed.md, with the one gap left: a pipelined request handed on outside the poll phase).
 * Statements of this process are counted as they run and need no epoch.
 */
let readEpoch = 0;
/** The connections whose requests arrived in this turn of the event loop (undefined: none yet). */
let turnConnections: WeakSet<object> | undefined;
function endTurn(): void {
  turnConnections = undefined;
}
/** A new read epoch; `connection`: a request arrived on it (see above). */
export function newReadEpoch(connection?: object): void {
  if (connection !== undefined) {
    if (turnConnections === undefined) {
      turnConnections = new WeakSet();
      // the check phase follows the poll phase, which reads the connections
      setImmediate(endTurn);
    } else if (!turnConnections.has(connection)) {
      turnConnections.add(connection);
      return;
    }
    turnConnections.add(connection);
  }
  readEpoch = (readEpoch + 1) | 0;
}

/**
 * A read kept until the database may have changed (its change stamp), by `space` (which read) and
 * `key`; on PostgreSQL and inside transactions it simply reads. The stamp is taken before the
 * read, so a result is never kept under a stamp newer than the state it saw. Results are shared:
 * callers must not change them.
 */
export async function stampedRead<T>(db: Queryable, space: string, key: string | number, read: () => Promise<T>): Promise<T> {
  const stampOf = changeStamps.get(db);
  if (stampOf === undefined) return read();
  const stamp = stampOf();
  let spaces = stampedSpaces.get(db);
  if (spaces === undefined) stampedSpaces.set(db, (spaces = new Map()));
  let cache = spaces.get(space);
  if (cache === undefined || cache.stamp !== stamp || cache.values.size >= STAMPED_MAX) {
    cache = { stamp, values: new Map() };
    spaces.set(space, cache);
  }
  if (cache.values.has(key)) return cache.values.get(key) as T;
  const value = await read();
  cache.values.set(key, value);
  return value;
}
const stampedSpaces = new WeakMap<object, Map<string, { stamp: number; values: Map<string | number, unknown> }>>();
const STAMPED_MAX = 10_000;

/** keptRead's answer when nothing is kept. */
export const NOT_KEPT: unique symbol = Symbol('not kept');

/**
 * What stampedRead would answer without reading, at once: the result kept under the database's
 * current stamp, or NOT_KEPT (nothing kept, PostgreSQL, a transaction). Lets the hot path of a
 * request (its token) go on without waiting a turn for a promise.
 */
export function keptRead<T>(db: Queryable, space: string, key: string | number): T | typeof NOT_KEPT {
  const stampOf = changeStamps.get(db);
  if (stampOf === undefined) return NOT_KEPT;
  const cache = stampedSpaces.get(db)?.get(space);
  if (cache === undefined || cache.stamp !== stampOf() || !cache.values.has(key)) return NOT_KEPT;
  return cache.values.get(key) as T;
}

/**
 * Runs a statement whose SQL text depends only on its shape (the table, the columns, the number
 * of rows of a multi-row insert), not on its values: the query builder compiles it once per
 * dialect and shape, and later runs bind `parameters` (in the order the builder gives them) to
 * that text. The first run of a shape checks that `parameters` are the builder's own.
 */
export async function runShaped(db: Queryable, shape: string, build: () => { compile(): CompiledQuery }, parameters: unknown[], hold = false): Promise<void> {
  await run(db, shapedText(db, shape, build, parameters), parameters, hold);
}

/**
 * Runs a statement whose answer nobody reads; with `hold`, on PostgreSQL in a transaction, it is
 * held and goes with the transaction's next statement (copyingClient, Held): one round trip for both.
 */
async function run(db: Queryable, text: string, values: readonly unknown[], hold: boolean): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(text, hold && db.isTransaction && onPostgres(db) && holdable(text) ? [new Held(values)] : (values as unknown[])));
}

/**
 * Runs `query` (an INSERT, UPDATE or DELETE, whose answer is read) with the statements its
 * transaction holds (Held) as data-modifying CTEs of it: one round trip for all. The
 * query must not read what they write: it sees the database as it was before all of them (one
 * statement, one snapshot). Elsewhere it runs as it is.
 */
export async function carrying<R>(db: Queryable, query: CompiledQuery<R>): Promise<R[]> {
  const carries = db.isTransaction && onPostgres(db) && holdable(query.sql);
  return (await db.executeQuery<R>(carries ? CompiledQuery.raw(query.sql, [new Carry(query.parameters)]) as CompiledQuery<R> : query)).rows;
}

/**
 * A query of a fixed shape (see runShaped) that returns rows: hot reads skip the builder. On
 * PostgreSQL it is a named prepared statement (node-postgres `name`): each connection parses it
 * once, and PostgreSQL may keep its plan, instead of parsing and planning it on every run (the
 * token read of every API request).
 */
export async function selectShaped<R>(db: Queryable, shape: string, build: () => { compile(): CompiledQuery<R> }, parameters: unknown[]): Promise<R[]> {
  const text = shapedText(db, shape, build, parameters);
  if (!preparedNames.has(text) && onPostgres(db)) preparedNames.set(text, `sheetd_read_${preparedNames.size + 1}`);
  const pool = db.isTransaction ? undefined : directPools.get(db);
  if (pool !== undefined) return (await pool.query<R & pg.QueryResultRow>({ name: preparedNames.get(text)!, text, values: parameters })).rows;
  const res = await db.executeQuery<R>(CompiledQuery.raw(text, parameters));
  return res.rows;
}
/**
 * PostgreSQL: each database's node-postgres pool, for the shaped reads outside a transaction (the
 * token read of every request): pool.query takes a connection, runs the statement and gives the
 * connection back in callbacks, without the query builder's executor and its connection
 * provider (a ninth of the instructions of the read, docs/speed.md).
 */
const directPools = new WeakMap<object, pg.Pool>();
/** PostgreSQL: the name of each shaped read's prepared statement, by its text (the same in every database of the process: a text has one name). */
const preparedNames = new Map<string, string>();

function shapedText(db: Queryable, shape: string, build: () => { compile(): CompiledQuery }, parameters: unknown[]): string {
  const adapter = db.getExecutor().adapter;
  let texts = shapedTexts.get(adapter);
  if (texts === undefined) shapedTexts.set(adapter, (texts = new Map()));
  let text = texts.get(shape);
  if (text === undefined) {
    const compiled = build().compile();
    const same = compiled.parameters.length === parameters.length && compiled.parameters.every((p, i) => p === parameters[i]);
    if (!same) throw new Error(`statement ${shape}: parameters not in the query builder's order`);
    text = compiled.sql;
    texts.set(shape, text);
  }
  return text;
}
const shapedTexts = new WeakMap<object, Map<string, string>>();

/**
 * Runs `fn` again (up to `attempts` times in all) when PostgreSQL chose its transaction as the
 * victim of a deadlock (40P01): the transaction was rolled back, so running it again is safe.
 * For operations that touch every table (test mode's reset and restore, the search index
 * rebuild) while the job worker's transactions run beside them.
 */
export async function retryingDeadlocks<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if ((e as { code?: string }).code !== '40P01' || i >= attempts) throw e;
    }
  }
}

/**
 * Makes the transactions that check a name or an address is free, then take it, wait for each
 * other on PostgreSQL: a transaction-scoped advisory lock on `key`, held until commit, so the
 * second one's check sees what the first one took (READ COMMITTED reads what is committed when
 * each statement starts). Holders of the shared mode do not wait for each other, only for the
 * exclusive one. SQLite's transactions already run one at a time.
 */
export async function lockName(tx: Queryable, key: string, mode: 'exclusive' | 'shared' = 'exclusive'): Promise<void> {
  if (!onPostgres(tx)) return;
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await tx.executeQuery(CompiledQuery.raw(`select ${fn}(hashtextextended($1, 0))`, [key]));
}

/** Whether `db` runs its queries on PostgreSQL. */
export function onPostgres(db: Queryable): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * PostgreSQL: the type of each column of a table (format_type), for the casts of unnest; read
 * once per table and process (every database a process opens has the migrations' schema).
 */
const pgColumnTypes = new Map<string, Promise<Map<string, string>>>();

function columnTypesOf(db: Queryable, table: string): Promise<Map<string, string>> {
  let types = pgColumnTypes.get(table);
  if (types === undefined) {
    types = db
      .executeQuery<{ name: string; type: string }>(CompiledQuery.raw('select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped', [table]))
      .then((res) => new Map(res.rows.map((r) => [r.name, r.type])));
    pgColumnTypes.set(table, types);
    types.catch(() => pgColumnTypes.delete(table));
  }
  return types;
}

/** `"a", "b"` and `$1::bigint[], $2::text[]`: the column list and the unnest arguments of `columns`. */
async function unnestParts(db: Queryable, table: string, columns: readonly string[]): Promise<{ names: string; arrays: string }> {
  const types = await columnTypesOf(db, table);
  const arrays = columns.map((c, k) => {
    const type = types.get(c);
    if (type === undefined) throw new Error(`unnest: ${table} has no column ${c}`);
    return `$${k + 1}::${type}[]`;
  });
  return { names: columns.map((c) => `"${c}"`).join(', '), arrays: arrays.join(', ') };
}

/**
 * The records as one array per column, when they all have the keys of the first, in the same
 * order, with plain values (string, number, null); otherwise undefined.
 */
function plainColumns(records: ReadonlyArray<Record<string, unknown>>): { columns: string[]; values: unknown[][] } | undefined {
  const columns = Object.keys(records[0]!);
  const values = columns.map(() => new Array<unknown>(records.length));
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    let k = 0;
    for (const key in r) {
      const v = r[key];
      if (key !== columns[k] || v === undefined || (typeof v === 'object' && v !== null)) return undefined;
      values[k]![i] = v;
      k++;
    }
    if (k !== columns.length) return undefined;
  }
  return { columns, values };
}

/**
 * The records [from, to) of each statement when a statement's values are to stay under about
 * `maxBytes` (all of them in one without it). The driver (pg) writes a statement's values as
 * one Buffer, and each array parameter as one string, both made afresh: above about 128 KB such
 * a Buffer or string is memory of its own from the system (malloc's mmap threshold, V8's large
 * objects), which costs a page fault per 4 KB written, more than writing it: binding the 500 rows
 * of an add (about 1 MB) took 17 ms of CPU in one statement against 4.6 ms in ten (a loop of
 * pg's own prepareValue and bind, on a machine at a load of 20).
 * Estimated: a string's length and a quarter (the array literal's escaped quotes), 17 bytes a number.
 */
function statementRanges(values: unknown[][], maxBytes: number | undefined): Array<[number, number]> {
  const n = values[0]!.length;
  if (maxBytes === undefined) return [[0, n]];
  const ranges: Array<[number, number]> = [];
  let from = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    let b = 0;
    for (const column of values) {
      const v = column[i];
      b += typeof v === 'string' ? v.length + (v.length >> 2) + 3 : 17;
    }
    if (i > from && bytes + b > maxBytes) {
      ranges.push([from, i]);
      from = i;
      bytes = 0;
    }
    bytes += b;
  }
  ranges.push([from, n]);
  return ranges;
}

/** Statement values of about this size at most (statementRanges): under the 128 KB of fresh memory. */
export const PG_STATEMENT_BYTES = 96 * 1024;

/** Ids a statement takes in one `in (...)` list: a statement's bound parameters are limited (SQLite 32,766, PostgreSQL 65,535). */
export const IDS_PER_STATEMENT = 500;

/**
 * `list` in consecutive parts of at most `size` (IDS_PER_STATEMENT unless told), in order, each
 * cut as it is reached: the one way a list of ids (or of records) is split for its statements.
 */
export function* chunks<T>(list: readonly T[], size = IDS_PER_STATEMENT): Generator<T[], void, undefined> {
  for (let i = 0; i < list.length; i += size) yield list.slice(i, i + size);
}

/**
 * `run` over `ids` in parts of at most IDS_PER_STATEMENT (chunks), in order, their results
 * concatenated: a list of a sheet's rows may hold hundreds of thousands of ids.
 */
export async function inParts<T, R = never>(ids: readonly T[], run: (part: T[]) => Promise<R[] | void>): Promise<R[]> {
  const out: R[] = [];
  for (const part of chunks(ids)) {
    const r = await run(part);
    if (r) for (const x of r) out.push(x);
  }
  return out;
}

/**
 * Inserts records. On PostgreSQL, PG_COPY_MIN or more records of strings, finite numbers and
 * nulls go as one `copy ... from stdin` (in the caller's transaction; 500 rows of an add: rows
 * 54-98 -> 17-26 ms, their 500 events 27-58 -> 18-28 ms, docs/speed.md); fewer records, or other
 * plain values, go in one statement whatever their number: `insert ... select ... from
 * unnest($1::bigint[], ...)`, one array parameter per column (500 rows of 13 columns were 7
 * statements of up to 1,664 parameters, each parsed and planned afresh); with
 * `pgStatementBytes`, in as many statements of the same text as keep each one's values under
 * that size (statementRanges). Elsewhere, multi-row statements of at most `chunk` rows (a power of two; the rest in
 * halving chunks, so a table has few statement shapes), each compiled once (runShaped):
 * inserting 500 rows otherwise builds and compiles a query of all their values every time.
 * Records must have the same keys in the same order and plain values (string, number, null);
 * others go through the query builder as they are.
 */
export async function insertMany<T extends keyof DB & string>(db: Queryable, table: T, records: ReadonlyArray<Insertable<DB[T]>>, chunk = 128, opts: { pgStatementBytes?: number; hold?: boolean } = {}): Promise<void> {
  if (records.length === 0) return;
  // the builder's own types do not follow a table name that is a type parameter
  const qb = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  if (records.length > 1 && onPostgres(db)) {
    const plain = plainColumns(records as ReadonlyArray<Record<string, unknown>>);
    if (plain !== undefined && records.length >= PG_COPY_MIN && copyable(plain.values)) {
      // COPY's text costs node-postgres and the server less than unnest's array literals (every
      // quote of a cell's JSON escaped, then parsed back), and it needs no statement per 96 KB
      await db.executeQuery(CompiledQuery.raw(copyStatement(table, plain.columns), [new CopyIn(copyChunks(plain.values))]));
      return;
    }
    if (plain !== undefined) {
      const { names, arrays } = await unnestParts(db, table, plain.columns);
      // in the records' order (with ordinality): serial columns (the change log's seq) number
      // the rows as they were given
      const text = `insert into "${table}" (${names}) select ${names} from unnest(${arrays}) with ordinality as u(${names}, sheetd_n) order by sheetd_n`;
      for (const [from, to] of statementRanges(plain.values, opts.pgStatementBytes)) {
        await run(db, text, from === 0 && to === records.length ? plain.values : plain.values.map((v) => v.slice(from, to)), opts.hold === true);
      }
      return;
    }
  }
  let i = 0;
  while (i < records.length) {
    let n = chunk;
    while (n > records.length - i) n >>= 1;
    const part = records.slice(i, i + n) as Array<Record<string, unknown>>;
    i += n;
    const plain = plainColumns(part);
    if (plain === undefined) {
      await qb.insertInto(table).values(part).execute();
      continue;
    }
    // the builder's parameters: row by row
    const parameters: unknown[] = [];
    for (let r = 0; r < n; r++) for (const column of plain.values) parameters.push(column[r]);
    await runShaped(db, `${table}(${plain.columns.join(',')})x${n}`, () => qb.insertInto(table).values(part), parameters, opts.hold === true);
  }
}

/**
 * Inserts the records of `batches` (records of plain values: string, number, null; every record
 * with the keys of the first, in the same order), asking for each batch once the one before is
 * on its way. On PostgreSQL they go as one `copy ... from stdin` streamed while the batches are
 * made: the server parses and stores a batch while the next is built, where statements of unnest
 * (insertMany) made each wait for the other, and COPY's text is cheaper for the server to read
 * than unnest's array literals (an import of 100,000 rows: docs/speed.md). Elsewhere insertMany
 * takes each batch.
 */
export async function insertBatches<T extends keyof DB & string>(db: Queryable, table: T, batches: Iterable<ReadonlyArray<Insertable<DB[T]>>> | AsyncIterable<ReadonlyArray<Insertable<DB[T]>>>): Promise<void> {
  if (!onPostgres(db)) {
    for await (const batch of batches) await insertMany(db, table, batch);
    return;
  }
  const each = Symbol.asyncIterator in batches ? batches[Symbol.asyncIterator]() : batches[Symbol.iterator]();
  let next = await each.next();
  while (next.done !== true && next.value.length === 0) next = await each.next();
  if (next.done === true) return;
  // the statement names the columns of the first record
  const columns = Object.keys(next.value[0]!);
  async function* text(): AsyncGenerator<string> {
    while (next.done !== true) {
      yield copyText(table, columns, next.value as ReadonlyArray<Record<string, unknown>>);
      next = await each.next();
    }
  }
  await db.executeQuery(CompiledQuery.raw(copyStatement(table, columns), [new CopyIn(text())]));
}

/** From this many records on, insertMany sends plain records to PostgreSQL by COPY, not unnest. */
const PG_COPY_MIN = 16;
/** Characters of COPY text per chunk: at most about 96 KB of UTF-8, under the 128 KB of fresh memory (statementRanges). */
const COPY_CHUNK_CHARS = 32 * 1024;

/** Whether every value can be written as COPY text: strings, finite numbers and null. */
function copyable(values: unknown[][]): boolean {
  for (const column of values) {
    for (const v of column) {
      if (v !== null && typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) return false;
    }
  }
  return true;
}

/** The rows of `values` (one array per column) in COPY's text format, in chunks of about COPY_CHUNK_CHARS. */
async function* copyChunks(values: unknown[][]): AsyncGenerator<string> {
  const n = values[0]!.length;
  let s = '';
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < values.length; k++) {
      // copyable checked every value
      const t = copyValue(values[k]![i])!;
      s += k === 0 ? t : `\t${t}`;
    }
    s += '\n';
    if (s.length >= COPY_CHUNK_CHARS) {
      yield s;
      s = '';
    }
  }
  if (s !== '') yield s;
}

/** A value in COPY's text format (`\\N` for null; backslash, tab, newline and carriage return escaped); undefined for anything but a string, number or null. */
function copyValue(v: unknown): string | undefined {
  if (typeof v === 'string') return COPY_SPECIAL.test(v) ? v.replace(COPY_SPECIALS, copyEscape) : v;
  if (typeof v === 'number') return String(v);
  return v === null ? '\\N' : undefined;
}

/** The statement of a COPY of `columns` into `table`, its data sent as a CopyIn parameter. */
function copyStatement(table: string, columns: readonly string[]): string {
  return `copy "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) from stdin`;
}

/** COPY's text format of records: a line each, values by tabs, `\N` for null, `\`, tab, newline and carriage return escaped. */
function copyText(table: string, columns: readonly string[], records: ReadonlyArray<Record<string, unknown>>): string {
  let s = '';
  for (const r of records) {
    let k = 0;
    for (const key in r) {
      if (key !== columns[k]) throw new Error(`copy into ${table}: records differ in their keys`);
      const t = copyValue(r[key]);
      if (t === undefined) throw new Error(`copy into ${table}: ${key} is not a string, number or null`);
      s += k === 0 ? t : `\t${t}`;
      k++;
    }
    if (k !== columns.length) throw new Error(`copy into ${table}: records differ in their keys`);
    s += '\n';
  }
  return s;
}
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIALS = /[\\\t\n\r]/g;
const copyEscape = (c: string): string => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r');

/**
 * The data of a `copy ... from stdin` statement (PostgreSQL): chunks of COPY's text format. Given
 * to executeQuery as that statement's one parameter, the store's clients (copyingPool) stream
 * them on the statement's own connection, so a COPY is part of the transaction that runs it.
 */
class CopyIn {
  constructor(readonly chunks: AsyncIterable<string>) {}
}

/**
 * The pool Kysely is given on PostgreSQL: node-postgres's, whose clients also run `copy ... from
 * stdin` with a CopyIn (pg-copy-streams, loaded on the first COPY) and hold statements for the
 * next one (Held). Kysely keeps its connection by client: a client gets one wrapper for its life.
 */
function copyingPool(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapped = clients.get(client);
      if (wrapped === undefined) clients.set(client, (wrapped = copyingClient(client)));
      return wrapped;
    },
    end: () => pool.end(),
  };
}

function copyingClient(client: pg.PoolClient): PostgresPoolClient {
  // the statements held for the transaction's next one (Held below), with the table each writes
  const held: Array<Statement & { table: string }> = [];
  // a transaction's `begin`, not sent yet: it goes with the transaction's first statement, in
  // one simple query when that statement's values can be written into its text (the write lock
  // of a sheet write can), before it otherwise; a transaction that sends nothing sends no begin
  let opening = false;
  const plain = client as unknown as PostgresPoolClient;
  async function open(): Promise<void> {
    if (!opening) return;
    opening = false;
    await plain.query('begin', []);
  }
  async function send<R>(q: string, parameters: ReadonlyArray<unknown> | undefined): Promise<PostgresQueryResult<R>> {
    if (opening && !(parameters?.length === 1 && parameters[0] instanceof CopyIn)) {
      const text = inlined(q, parameters ?? []);
      if (text !== undefined) {
        opening = false;
        // a simple query of two statements answers both: the second is the statement's
        const results = (await client.query(`begin; ${text}`)) as unknown as Array<PostgresQueryResult<R>>;
        return results[results.length - 1]!;
      }
    }
    await open();
    if (parameters?.length === 1 && parameters[0] instanceof CopyIn) return copyIn(client, q, parameters[0]);
    const name = preparedNames.get(q);
    if (name !== undefined) return client.query({ name, text: q, values: parameters as unknown[] }) as unknown as Promise<PostgresQueryResult<R>>;
    return plain.query<R>(q, parameters ?? []);
  }
  function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(q: string | PostgresCursor<R>, parameters?: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (q === 'begin' && !opening && held.length === 0) {
      opening = true;
      return Promise.resolve(answered<R>('BEGIN'));
    }
    // a transaction that sent nothing ends without a word to the server
    if (opening && held.length === 0 && (q === 'commit' || q === 'rollback')) {
      opening = false;
      return Promise.resolve(answered<R>(q.toUpperCase()));
    }
    const first = parameters?.length === 1 ? parameters[0] : undefined;
    if (first instanceof Held) {
      const statement = { sql: q as string, values: first.values, table: targetOf(q as string)! };
      const hold = () => {
        held.push(statement);
        return answered<R>('UPDATE', 0);
      };
      // one held statement a table: statements of one statement (its CTEs) see the same
      // snapshot, so a second one would not see the first one's rows, and two updates of one
      // row in one statement are not defined
      return held.some((h) => h.table === statement.table) ? flush().then(hold) : Promise.resolve(hold());
    }
    if (first instanceof Carry) {
      const main = { sql: q as string, values: first.values };
      if (held.some((h) => h.table === targetOf(main.sql))) return flush().then(() => send<R>(main.sql, main.values));
      const { sql, values } = withHeld(held.splice(0), main);
      return send<R>(sql, values);
    }
    if (typeof q !== 'string') {
      // a cursor: what waits is sent before it, now (node-postgres runs a client's queries in
      // the order given; a failure of theirs fails the transaction, and the cursor's statement)
      if (opening) {
        opening = false;
        plain.query('begin', []).catch(() => undefined);
      }
      const waiting = takeHeld();
      if (waiting !== undefined) plain.query(waiting.sql, waiting.values).catch(() => undefined);
      return plain.query(q);
    }
    if (held.length === 0) return send<R>(q, parameters);
    // the transaction ends without them; otherwise they go first, as one statement, in order
    if (/^rollback$/i.test(q)) {
      held.length = 0;
      if (opening) {
        opening = false;
        return Promise.resolve(answered<R>('ROLLBACK'));
      }
      return send<R>(q, parameters);
    }
    return flush().then(() => send<R>(q, parameters));
  }
  /** The held statements, taken, as one statement (the last one carrying the others); undefined when none is held. */
  function takeHeld(): Statement | undefined {
    const all = held.splice(0);
    return all.length === 0 ? undefined : withHeld(all.slice(0, -1), all[all.length - 1]!);
  }
  /** The held statements as one, sent now. */
  async function flush(): Promise<void> {
    const waiting = takeHeld();
    if (waiting !== undefined) await send(waiting.sql, waiting.values);
  }
  return {
    query,
    release: () => {
      // a transaction ends by commit (which sent them) or rollback: none is left but on a broken connection
      held.length = 0;
      opening = false;
      client.release();
    },
  };
}

interface Statement {
  sql: string;
  values: readonly unknown[];
}

/** The answer given for a statement the client did not send (a deferred begin, a held statement, an empty transaction's end). */
function answered<R>(command: string, rowCount: number | null = null): PostgresQueryResult<R> {
  return { command, rowCount, rows: [] } as unknown as PostgresQueryResult<R>;
}

/** The table an INSERT, UPDATE or DELETE of the store writes, by its text; undefined for another statement. */
function targetOf(sql: string): string | undefined {
  return /^(?:insert\s+into|update|delete\s+from)\s+"([^"]+)"/i.exec(sql)?.[1];
}

/**
 * A statement held (on PostgreSQL, in a transaction: run and runShaped with `hold`): a write's
 * statement whose answer nobody reads (its rows' updates, their cell history, its change events).
 * It is not sent at once but with the transaction's next statement, as a data-modifying CTE
 * (`with sheetd_held_1 as (...), ... <next statement>`): the statement that carries them
 * (`carrying`), or else one of their own sent before whatever comes next (a commit too), so
 * that every statement still runs after the ones before it. Their failure is the next
 * statement's. A rollback drops them.
 */
class Held {
  constructor(readonly values: readonly unknown[]) {}
}

/** The statement `carrying` runs: it takes the held statements with it. */
class Carry {
  constructor(readonly values: readonly unknown[]) {}
}

/**
 * Whether a statement's text may be held or carry held ones: an INSERT, UPDATE or DELETE of a
 * table named at its start, whose parameters ($1...) can be renumbered (rewriteParameters).
 */
function holdable(sql: string): boolean {
  return targetOf(sql) !== undefined && rewriteParameters(sql, (n) => `$${n}`) !== undefined;
}

/**
 * `sql` with each parameter ($1, $2, ...) outside quoted literals and identifiers replaced by
 * `to(n)`; undefined when the text has what this reading does not follow (a dollar-quoted
 * string, an escape string E'...', a quote left open) or `to` gives undefined.
 */
function rewriteParameters(sql: string, to: (n: number) => string | undefined): string | undefined {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      // an escape string's backslashes would end it elsewhere
      if (c === "'" && i > 0 && /[A-Za-z0-9_]/.test(sql[i - 1]!)) return undefined;
      const end = sql.indexOf(c, i + 1);
      if (end < 0) return undefined;
      // a doubled quote inside is two such strings one after the other: the same text
      out += sql.slice(i, end + 1);
      i = end + 1;
    } else if (c === '$') {
      const m = /^\$(\d+)/.exec(sql.slice(i, i + 12));
      if (m === null) return undefined;
      const r = to(Number(m[1]));
      if (r === undefined) return undefined;
      out += r;
      i += m[0].length;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * A statement with its parameters written in as quoted literals, for a simple query (which takes
 * none): only values whose text is plain (numbers, booleans, nulls, strings of letters, digits
 * and `_ .:@-`), undefined otherwise. A quoted literal is of unknown type, as a parameter
 * node-postgres sends is, so PostgreSQL reads it as it would the parameter.
 */
function inlined(sql: string, values: readonly unknown[]): string | undefined {
  return rewriteParameters(sql, (n) => {
    if (n < 1 || n > values.length) return undefined;
    const v = values[n - 1];
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'number') return Number.isFinite(v) ? `'${v}'` : undefined;
    if (typeof v === 'boolean' || typeof v === 'bigint') return `'${v}'`;
    return typeof v === 'string' && /^[A-Za-z0-9_ .:@-]*$/.test(v) ? `'${v}'` : undefined;
  });
}

/** `main` with the `held` statements before it as data-modifying CTEs, their parameters renumbered. */
function withHeld(held: readonly Statement[], main: Statement): Statement {
  if (held.length === 0) return main;
  const values: unknown[] = [];
  const ctes: string[] = [];
  const shifted = (sql: string): string => {
    const by = values.length;
    // holdable: every statement here is one rewriteParameters reads through
    return by === 0 ? sql : rewriteParameters(sql, (n) => `$${n + by}`)!;
  };
  held.forEach((h, i) => {
    ctes.push(`sheetd_held_${i + 1} as (${shifted(h.sql)})`);
    values.push(...h.values);
  });
  const sql = shifted(main.sql);
  values.push(...main.values);
  const withList = /^with\s/i.exec(sql);
  return { sql: withList ? `with ${ctes.join(', ')}, ${sql.slice(withList[0].length)}` : `with ${ctes.join(', ')} ${sql}`, values };
}

async function copyIn<R>(client: pg.PoolClient, sql: string, data: CopyIn): Promise<PostgresQueryResult<R>> {
  const { from } = await import('pg-copy-streams');
  const stream = client.query(from(sql));
  // the data's error (or the server's) ends the COPY: the server is sent CopyFail, and the
  // statement fails like any other, its transaction with it
  await pipeline(Readable.from(data.chunks, { highWaterMark: 1 }), stream);
  // Kysely counts the rows of INSERT, UPDATE, DELETE and MERGE only
  return { command: 'COPY' as PostgresQueryResult<R>['command'], rowCount: stream.rowCount, rows: [] };
}

/**
 * Updates records by their `id` (the first key of each; the others are the columns set, the same
 * keys in the same order in every record, plain values). On PostgreSQL, in a transaction,
 * PG_COPY_MIN or more records of strings, finite numbers and nulls go by COPY into a temporary
 * table and one UPDATE from it; others in one statement that sets them all from unnest (500 rows
 * were 500 round trips; with `pgStatementBytes`, as insertMany); elsewhere one compiled statement
 * runs per record, in process, all in one call (RunEach).
 */
export async function updateManyById<T extends keyof DB & string>(db: Queryable, table: T, records: ReadonlyArray<{ id: number } & Record<string, string | number | null>>, opts: { pgStatementBytes?: number; hold?: boolean } = {}): Promise<void> {
  if (records.length === 0) return;
  const columns = Object.keys(records[0]!);
  if (columns[0] !== 'id') throw new Error('updateManyById: id must be the first key');
  const set = columns.slice(1);
  if (records.length > 1 && onPostgres(db)) {
    const plain = plainColumns(records);
    if (plain === undefined) throw new Error(`updateManyById: records of ${table} differ in their keys or hold objects`);
    const assignments = set.map((c) => `"${c}" = u."${c}"`).join(', ');
    if (records.length >= PG_COPY_MIN && db.isTransaction && copyable(plain.values)) {
      // COPY into a temporary table of the session (made by the first such update on the
      // connection; emptied at each commit), then one UPDATE from it that empties it as it reads
      // it (a second update of the transaction finds it empty). 500 rows x 20 cells: 12 unnest
      // statements of about 96 KB were 3 statements (docs/speed.md).
      const types = await columnTypesOf(db, table);
      const temp = tempTableOf(table, columns);
      await db.executeQuery(CompiledQuery.raw(`create temp table if not exists "${temp}" (${columns.map((c) => `"${c}" ${types.get(c)!}`).join(', ')}) on commit delete rows`, []));
      await db.executeQuery(CompiledQuery.raw(copyStatement(temp, columns), [new CopyIn(copyChunks(plain.values))]));
      // the rows by their primary key, whatever the planner's statistics say: joined on `id`
      // alone, a table it had not analyzed since it was small (and a temporary table it never
      // analyzes) made it hash the whole table (a 500-row update of a 25,000-row sheet: 30 ms
      // against 6 ms, and every sheet's rows read once the table holds many sheets)
      await db.executeQuery(CompiledQuery.raw(`with u as (delete from "${temp}" returning *) update "${table}" as t set ${assignments} from u where t."id" = u."id" and t."id" = any(array(select "id" from u))`, []));
      return;
    }
    const { names, arrays } = await unnestParts(db, table, columns);
    const text = `update "${table}" as t set ${assignments} from unnest(${arrays}) as u(${names}) where t."id" = u."id"`;
    for (const [from, to] of statementRanges(plain.values, opts.pgStatementBytes)) {
      await run(db, text, from === 0 && to === records.length ? plain.values : plain.values.map((v) => v.slice(from, to)), opts.hold === true);
    }
    return;
  }
  const qb = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const all: unknown[][] = [];
  // SQLite: in the order of their ids (a stable sort: a row named twice keeps its last record),
  // so that the id index and the pages it leads to are read in order: a sort of 100,000 rows
  // updated them in their new display order, scattered over the table, 1.3 s against 0.5 s
  const ordered = records.length > 1 && !onPostgres(db) ? [...records].sort((a, b) => a.id - b.id) : records;
  for (const r of ordered) {
    const parameters: unknown[] = [];
    for (const c of set) parameters.push(r[c]);
    parameters.push(r.id);
    all.push(parameters);
  }
  const { id, ...values } = ordered[0]!;
  const build = () => qb.updateTable(table as string).set(values).where('id', '=', id);
  // PostgreSQL, one record: its statement
  if (onPostgres(db)) return runShaped(db, `${table}.update(${set.join(',')})`, build, all[0]!, opts.hold === true);
  // compiled once (the first record's parameters checked against the builder's), then one
  // call that runs it for every record
  const text = shapedText(db, `${table}.update(${set.join(',')})`, build, all[0]!);
  await db.executeQuery(CompiledQuery.raw(text, [new RunEach(all)]));
}

/**
 * The temporary table of updateManyById's COPY for a table and its columns: one per list of
 * columns (a table updated with other columns than before gets a table of its own, not the
 * first one's), named by a number this process gives (temporary tables belong to a connection,
 * and a process's connections are its own).
 */
function tempTableOf(table: string, columns: readonly string[]): string {
  const key = `${table}(${columns.join(',')})`;
  let name = tempTables.get(key);
  if (name === undefined) {
    name = `sheetd_update_${table}_${tempTables.size + 1}`;
    tempTables.set(key, name);
  }
  return name;
}
const tempTables = new Map<string, string>();

export async function migrate(store: Store): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${String(error)}`);
  }
}
