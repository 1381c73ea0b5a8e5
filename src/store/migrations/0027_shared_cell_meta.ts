import type { Kysely } from 'kysely';
import type { Dialect } from './types.ts';

/**
 * Nothing to change in the tables: from this step on, a row's cell meta may be stored in its
 * shared form, `{"*":[modifiedAt,modifiedBy]}` for a row whose cells all have one stamp (see
 * store/sheetModels.ts). The step is here so that a sheetd from before it refuses to start on a
 * database that holds that form (Kysely refuses a database with steps it does not know) rather
 * than read `*` as a column and lose those cells' stamps. Rows in the full form stay as they are
 * and are read as before.
 */
export async function up(_db: Kysely<unknown>, _d: Dialect): Promise<void> {}
