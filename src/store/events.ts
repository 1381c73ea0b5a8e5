import type { Insertable } from 'kysely';
import type { Queryable } from './db.ts';
import type { EventTable } from './schema.ts';

export async function appendEvents(db: Queryable, rows: Insertable<EventTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('events').values(rows).execute();
}
