import type { Kysely } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely';
import type { Dialect } from './types.ts';
import * as m0001 from './0001_foundation.ts';
import * as m0002 from './0002_sheets.ts';
import * as m0003 from './0003_org.ts';
import * as m0004 from './0004_containers.ts';
import * as m0005 from './0005_images.ts';
import * as m0006 from './0006_links.ts';
import * as m0007 from './0007_views.ts';
import * as m0008 from './0008_rows_by_insertion.ts';
import * as m0009 from './0009_change_log_jobs.ts';
import * as m0010 from './0010_image_blobs.ts';
import * as m0011 from './0011_attachments.ts';
import * as m0012 from './0012_webhooks.ts';
import * as m0013 from './0013_oauth.ts';
import * as m0014 from './0014_summary.ts';
import * as m0015 from './0015_reports.ts';
import * as m0016 from './0016_automation.ts';
import * as m0017 from './0017_sights.ts';
import * as m0018 from './0018_publications.ts';
import * as m0019 from './0019_proofs.ts';
import * as m0020 from './0020_update_requests.ts';
import * as m0022 from './0022_search_index.ts';
import * as m0023 from './0023_lookup_indexes.ts';
import * as m0024 from './0024_search_row_docs.ts';
import * as m0025 from './0025_lighter_writes.ts';
import * as m0026 from './0026_search_gin_direct.ts';
import * as m0027 from './0027_shared_cell_meta.ts';
import * as m0028 from './0028_event_runs.ts';
import * as m0029 from './0029_cell_history_rows.ts';
import * as m0030 from './0030_password_links.ts';
import * as m0031 from './0031_search_gin_small_pending.ts';

/**
 * Migrations, applied in name order at start: one file per step, each taking the dialect so
 * the few type names that differ are chosen in types.ts and nowhere else. Add a step by adding
 * a file and a line here; never edit a step that has shipped.
 */
const steps: Array<[string, { up(db: Kysely<unknown>, d: Dialect): Promise<void> }]> = [
  ['0001_foundation', m0001],
  ['0002_sheets', m0002],
  ['0003_org', m0003],
  ['0004_containers', m0004],
  ['0005_images', m0005],
  ['0006_links', m0006],
  ['0007_views', m0007],
  ['0008_rows_by_insertion', m0008],
  ['0009_change_log_jobs', m0009],
  ['0010_image_blobs', m0010],
  ['0011_attachments', m0011],
  ['0012_webhooks', m0012],
  ['0013_oauth', m0013],
  ['0014_summary', m0014],
  ['0015_reports', m0015],
  ['0016_automation', m0016],
  ['0017_sights', m0017],
  ['0018_publications', m0018],
  ['0019_proofs', m0019],
  ['0020_update_requests', m0020],
  ['0022_search_index', m0022],
  ['0023_lookup_indexes', m0023],
  ['0024_search_row_docs', m0024],
  ['0025_lighter_writes', m0025],
  ['0026_search_gin_direct', m0026],
  ['0027_shared_cell_meta', m0027],
  ['0028_event_runs', m0028],
  ['0029_cell_history_rows', m0029],
  ['0030_password_links', m0030],
  ['0031_search_gin_small_pending', m0031],
];

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      const out: Record<string, Migration> = {};
      for (const [name, step] of steps) out[name] = { up: (db) => step.up(db, dialect) };
      return out;
    },
  };
}
