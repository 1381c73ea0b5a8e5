import { createPgDatabase } from '../test/helpers/server.ts';

/** The PostgreSQL server the bench may create databases on: BENCH_DATABASE_URL, else SHEETD_TEST_DATABASE_URL (undefined: none). */
export function benchPgAdminUrl(): string | undefined {
  return process.env.BENCH_DATABASE_URL || process.env.SHEETD_TEST_DATABASE_URL || undefined;
}

/**
 * Runs a suite's measure on SQLite, then on a fresh PostgreSQL database when BENCH_DATABASE_URL
 * (or SHEETD_TEST_DATABASE_URL) names a server whose user may create databases.
 */
export async function onEachStore(measure: (store: 'SQLite' | 'PostgreSQL', databaseUrl: string | undefined) => Promise<void>): Promise<void> {
  await measure('SQLite', undefined);
  const adminUrl = benchPgAdminUrl();
  if (!adminUrl) {
    console.log('(PostgreSQL skipped: set BENCH_DATABASE_URL to a PostgreSQL URL whose user may create databases)');
    return;
  }
  const db = await createPgDatabase(adminUrl);
  try {
    await measure('PostgreSQL', db.url);
  } finally {
    await db.drop();
  }
}
