import type { Kysely } from 'kysely';
import { types, type Dialect } from './types.ts';

/**
 * Automation rules (services/outbound/automation.ts). A rule belongs to a sheet and goes with it; its
 * trigger, conditions and action are JSON. `automation_digest` holds the rows waiting for an
 * HOURLY, DAILY or WEEKLY message; `automation_fired` remembers which time-based firings ran
 * (a retried job sends nothing twice); `automation_approvals` is one approval request sent to
 * one recipient (the signed link names it).
 */
export async function up(db: Kysely<unknown>, d: Dialect): Promise<void> {
  const t = types(d);
  await db.schema
    .createTable('automation_rules')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('sheet_id', t.id, (c) => c.notNull().references('sheets.id').onDelete('cascade'))
    .addColumn('org_id', t.id, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('conditions', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('created_by', t.id, (c) => c.notNull())
    .addColumn('modified_at', t.ms, (c) => c.notNull())
    .addColumn('modified_by', t.id, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('automation_rules_sheet').on('automation_rules').columns(['sheet_id', 'created_at']).execute();
  await db.schema
    .createTable('automation_digest')
    .addColumn('rule_id', t.id, (c) => c.notNull().references('automation_rules.id').onDelete('cascade'))
    .addColumn('row_id', t.id, (c) => c.notNull())
    .addColumn('added_at', t.ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('automation_digest_pk', ['rule_id', 'row_id'])
    .execute();
  await db.schema
    .createTable('automation_fired')
    .addColumn('rule_id', t.id, (c) => c.notNull().references('automation_rules.id').onDelete('cascade'))
    .addColumn('fire_key', 'text', (c) => c.notNull())
    .addColumn('fired_at', t.ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('automation_fired_pk', ['rule_id', 'fire_key'])
    .execute();
  await db.schema
    .createTable('automation_approvals')
    .addColumn('id', t.id, (c) => c.primaryKey())
    /** the recipients of one request share it: the first decision settles it for all */
    .addColumn('request_id', t.id, (c) => c.notNull())
    .addColumn('rule_id', t.id, (c) => c.notNull().references('automation_rules.id').onDelete('cascade'))
    .addColumn('sheet_id', t.id, (c) => c.notNull())
    .addColumn('row_id', t.id, (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ms, (c) => c.notNull())
    .addColumn('decided_at', t.ms)
    .addColumn('decision', 'text')
    .execute();
  await db.schema.createIndex('automation_approvals_request').on('automation_approvals').columns(['request_id']).execute();
}
