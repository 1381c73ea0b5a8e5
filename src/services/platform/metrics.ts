import { clock } from '../../clock.ts';
import { ping, type Store } from '../../store/db.ts';
import { jobCounts } from '../../store/jobs.ts';
import { sheetCacheStats } from '../sheets/sheetCache.ts';
import { catchUpElsewhere } from '../log/searchIndex.ts';

/** What /metrics reads at each scrape: the job queue, the connection pool, this process's sheet cache, where the search index is caught up. */
export async function operationalGauges(store: Store) {
  return {
    jobs: await jobCounts(store.db, clock.now()),
    pool: store.poolStats?.() ?? null,
    sheetCache: sheetCacheStats(),
    indexThread: catchUpElsewhere(store),
  };
}

/** GET /health: the database answers. */
export async function checkHealth(store: Store): Promise<void> {
  await ping(store.db);
}
