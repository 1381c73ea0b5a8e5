import type { Selectable } from 'kysely';
import type { Queryable } from '../../store/db.ts';
import type { EventTable } from '../../store/schema.ts';
import { findSheet, type SheetRow } from '../../store/sheets.ts';
import type { SheetModel } from '../../engine/model.ts';
import { modelForRead } from '../computed/currentValues.ts';
import { userLookup, type UserLookup } from '../sheets/sheetReads.ts';
import { linksOut } from '../computed/cellLinks.ts';
import { MAX_RECOMPUTED, RECOMPUTED_KEY } from '../log/recomputed.ts';

/**
 * What the change stream says about a run of a sheet's change-log events: events of one kind
 * in a row become one stream event (its `id:` the position of the last of them), so an add of
 * 500 rows is one `rows-added`, not 500.
 */
export type EventRow = Selectable<EventTable>;

export type ChangeKind =
  | 'rows-added' | 'rows-updated' | 'rows-moved' | 'rows-deleted'
  | 'columns-added' | 'columns-updated' | 'columns-deleted'
  | 'sheet-updated' | 'sheet-deleted'
  | 'attachments' | 'discussions' | 'comments' | 'shares' | 'proofs';

export interface Change {
  kind: ChangeKind;
  /** The change-log position of the last event of the run: the stream event's id. */
  pos: number;
  events: EventRow[];
}

/** Sheet actions that change who may see it. */
const SHARE_ACTIONS = new Set(['ADD_SHARE', 'UPDATE_SHARE', 'REMOVE_SHARE', 'TRANSFER_OWNERSHIP']);
/** Sheet actions that change what it holds or how it is shown. */
const SHEET_UPDATES = new Set(['UPDATE', 'RENAME', 'SORT', 'MOVE']);
const ITEM_KINDS: Record<string, ChangeKind> = { ATTACHMENT: 'attachments', DISCUSSION: 'discussions', COMMENT: 'comments', PROOF: 'proofs' };
const COLUMN_KINDS: Record<string, ChangeKind> = { CREATE: 'columns-added', UPDATE: 'columns-updated', DELETE: 'columns-deleted' };

function detailsOf(e: EventRow): Record<string, unknown> {
  try {
    const d = JSON.parse(e.additional_details) as unknown;
    return d !== null && typeof d === 'object' ? (d as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The stream kind of one change-log event, or null for events the stream does not carry (mail sent, automation runs). */
export function kindOf(e: EventRow): ChangeKind | null {
  switch (e.object_type) {
    case 'ROW':
      if (e.action === 'CREATE') return 'rows-added';
      if (e.action === 'DELETE') return 'rows-deleted';
      if (e.action === 'UPDATE') return detailsOf(e).moved === true ? 'rows-moved' : 'rows-updated';
      return null;
    case 'COLUMN':
      return COLUMN_KINDS[e.action] ?? null;
    case 'SHEET':
      if (e.object_id !== e.sheet_id) return null;
      if (e.action === 'DELETE') return 'sheet-deleted';
      if (SHARE_ACTIONS.has(e.action)) return 'shares';
      return SHEET_UPDATES.has(e.action) ? 'sheet-updated' : null;
    case 'SUMMARY_FIELD':
      return 'sheet-updated';
    default:
      return ITEM_KINDS[e.object_type] ?? null;
  }
}

/** Whether an event of the sheet may change who can see it (its shares, its owner, its workspace). */
export function touchesAccess(e: EventRow): boolean {
  return e.object_type === 'SHEET' && (SHARE_ACTIONS.has(e.action) || e.action === 'MOVE');
}

/** Organization events that may change what a user can see anywhere: groups, workspaces, users, tokens, folders. */
const ORG_ACCESS_TYPES = new Set(['GROUP', 'WORKSPACE', 'USER', 'ACCESS_TOKEN', 'FOLDER', 'ACCOUNT']);
export function touchesOrgAccess(e: EventRow): boolean {
  return ORG_ACCESS_TYPES.has(e.object_type);
}

/** Runs of one kind, in log order. */
export function changesOf(events: readonly EventRow[]): Change[] {
  const out: Change[] = [];
  for (const e of events) {
    const kind = kindOf(e);
    if (kind === null) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.kind === kind && kind !== 'sheet-deleted') {
      last.events.push(e);
      last.pos = e.pos!;
    } else {
      out.push({ kind, pos: e.pos!, events: [e] });
    }
  }
  return out;
}

/** What presenting a batch needs of the sheet as it is now (loaded once per batch, whoever reads it). */
export interface SheetNow {
  sheet: SheetRow;
  model: SheetModel;
  users: UserLookup;
  linksOut: Awaited<ReturnType<typeof linksOut>>;
  /** Per change of rows: the other rows whose formula results it altered, or 'many' past MAX_RECOMPUTED. */
  recomputed: Map<Change, number[] | 'many'>;
}

/**
 * The changes of one sheet read from the log at once, as every stream of the sheet that is
 * caught up receives them: the same object for all of them, so the sheet is loaded once and
 * the text of each access level is written once (the route keeps it on the batch).
 */
export class Batch {
  private nowP: Promise<SheetNow | null> | undefined;
  constructor(
    private readonly db: Queryable,
    readonly sheetId: number,
    readonly changes: Change[],
  ) {}

  /** The sheet and its model as they are now (formula results up to date); null when it is gone. */
  now(): Promise<SheetNow | null> {
    this.nowP ??= (async () => {
      const sheet = await findSheet(this.db, this.sheetId);
      if (!sheet) return null;
      const model = await modelForRead(this.db, sheet);
      const rowIds = new Set<number>();
      for (const c of this.changes) if (c.kind.startsWith('rows-') && c.kind !== 'rows-deleted') for (const e of c.events) rowIds.add(e.object_id);
      // rows whose formula results a change of rows altered (withRecomputed noted them), as they are now
      const recomputed = new Map<Change, number[] | 'many'>();
      for (const c of this.changes) {
        if (!c.kind.startsWith('rows-')) continue;
        const ids = new Set<number>();
        let many = false;
        for (const e of c.events) {
          const r = detailsOf(e)[RECOMPUTED_KEY];
          if (r === 'many') many = true;
          else if (Array.isArray(r)) for (const id of r) if (typeof id === 'number' && model.rows.has(id)) ids.add(id);
        }
        for (const e of c.events) ids.delete(e.object_id);
        if (many || ids.size > MAX_RECOMPUTED) recomputed.set(c, 'many');
        else if (ids.size > 0) {
          recomputed.set(c, [...ids]);
          for (const id of ids) rowIds.add(id);
        }
      }
      const rows = [...rowIds].map((id) => model.rows.get(id)).filter((r) => r !== undefined);
      return { sheet, model, users: await userLookup(this.db, rows), linksOut: await linksOut(this.db, this.sheetId), recomputed };
    })();
    return this.nowP;
  }
}

export function detailsOfEvent(e: EventRow): Record<string, unknown> {
  return detailsOf(e);
}
