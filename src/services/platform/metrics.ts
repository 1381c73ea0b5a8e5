import { clock } from '../../clock.ts';
import { ping, type Store } from '../../store/db.ts';
import { jobCounts } from '../../store/jobs.ts';

/** What /metrics reads from the database side at each scrape: the job queue and the connection pool. */
export async function operationalGauges(store: Store) {
  return {
    jobs: await jobCounts(store.db, clock.now()),
    pool: store.poolStats?.() ?? null,
  };
}

/** GET /health: the database answers. */
export async function checkHealth(store: Store): Promise<void> {
  await ping(store.db);
}
