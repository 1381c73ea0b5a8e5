import type { AccessLevel } from '../../services/access/access.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import { detailsOfEvent, type Batch, type Change, type EventRow, type SheetNow } from '../../services/live/changes.ts';
import { presentModelColumn, presentRow, sheetSummary } from './sheetContents.ts';
import { atLeast } from '../../services/access/access.ts';

/**
 * The change stream's events as Server-Sent Events text (docs/changes-stream.md). A change is
 * presented once per access level and read options, whichever streams send it: the text is kept
 * on the change object, which the streams that are caught up share.
 */

export function sseEvent(kind: string, id: number | null, data: unknown): string {
  return `${id !== null ? `id: ${id}\n` : ''}event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;
}

const texts = new WeakMap<Change, Map<string, string>>();

export async function presentChanges(batch: Batch, changes: readonly Change[], level: AccessLevel, ro: ReadOptions, roKey: string, permalinkBase: string): Promise<string> {
  const key = `${level}|${roKey}`;
  let now: SheetNow | null | undefined;
  let out = '';
  for (const c of changes) {
    let byKey = texts.get(c);
    let text = byKey?.get(key);
    if (text === undefined) {
      now ??= await batch.now();
      text = sseEvent(c.kind, c.pos, now === null ? { sheetId: batch.sheetId } : changeData(c, now, level, ro, permalinkBase));
      if (!byKey) texts.set(c, (byKey = new Map()));
      byKey.set(key, text);
    }
    out += text;
  }
  return out;
}

function ids(events: readonly EventRow[]): number[] {
  return [...new Set(events.map((e) => e.object_id))];
}

const ACTIONS: Record<string, string> = { CREATE: 'created', UPDATE: 'updated', DELETE: 'deleted' };
/** What an item event names besides its id (attachments, discussions, comments, proofs): where it hangs. */
const ITEM_DETAILS = ['parentType', 'parentId', 'attachmentType', 'name', 'discussionId', 'rowId'];

/**
 * What a run of sheet-updated events changed, so that a reader reads again only what it must:
 * `name` (RENAME), `rowOrder` (SORT), `location` (MOVE), `filters` (shared filters, with their
 * `filterIds`), `conditionalFormats`, `crossSheetReferences`, `proofing`, `publish`, `summary`
 * (summary fields), and `settings` for any other change of the sheet's settings.
 */
function sheetChanges(events: readonly EventRow[]): { changed: string[]; filterIds?: number[] } {
  const changed = new Set<string>();
  const filterIds = new Set<number>();
  for (const e of events) {
    if (e.object_type === 'SUMMARY_FIELD') changed.add('summary');
    else if (e.action === 'RENAME') changed.add('name');
    else if (e.action === 'SORT') changed.add('rowOrder');
    else if (e.action === 'MOVE') changed.add('location');
    else {
      const d = detailsOfEvent(e);
      if (typeof d.filterId === 'number') {
        changed.add('filters');
        filterIds.add(d.filterId);
      } else if (d.conditionalFormats !== undefined) changed.add('conditionalFormats');
      else if (d.crossSheetReferenceId !== undefined) changed.add('crossSheetReferences');
      else if (d.proofing !== undefined) changed.add('proofing');
      else if (d.publish !== undefined) changed.add('publish');
      else changed.add('settings');
    }
  }
  return filterIds.size > 0 ? { changed: [...changed], filterIds: [...filterIds] } : { changed: [...changed] };
}

function changeData(c: Change, now: SheetNow, level: AccessLevel, ro: ReadOptions, permalinkBase: string): Record<string, unknown> {
  const { model, sheet } = now;
  const base = { sheetId: sheet.id, version: sheet.version };
  const present = (list: readonly number[]) => list.map((id) => model.rows.get(id)).filter((r) => r !== undefined)
    .map((r) => presentRow(model, r, { ro, level, users: now.users, permalinkBase, linksOut: now.linksOut }));
  // other rows whose formula results the change altered
  const re = now.recomputed.get(c);
  const recomputed = re === undefined ? {} : re === 'many' ? { recomputedTruncated: true } : { recomputed: present(re) };
  switch (c.kind) {
    case 'rows-added':
    case 'rows-updated':
    case 'rows-moved': {
      const rowIds = ids(c.events);
      // a row named here and gone now was deleted later: its rows-deleted follows
      return { ...base, rowIds, rows: present(rowIds), ...recomputed };
    }
    case 'rows-deleted':
      return { ...base, rowIds: ids(c.events), ...recomputed };
    case 'columns-added':
    case 'columns-updated': {
      const columnIds = ids(c.events);
      const columns = columnIds.map((id) => model.columnsById.get(id)).filter((x) => x !== undefined)
        .map((col) => presentModelColumn(model, col, ro.level, ro.include.has('format'), atLeast(level, 'ADMIN')));
      return { ...base, columnIds, columns };
    }
    case 'columns-deleted':
      return { ...base, columnIds: ids(c.events) };
    case 'sheet-updated':
      return { ...base, sheet: sheetSummary(sheet, level, ro, permalinkBase), actions: [...new Set(c.events.map((e) => e.action))], ...sheetChanges(c.events) };
    case 'shares':
      return { ...base, actions: [...new Set(c.events.map((e) => e.action))] };
    case 'sheet-deleted':
      return { sheetId: sheet.id };
    default:
      return {
        ...base,
        items: c.events.map((e) => {
          const d = detailsOfEvent(e);
          const item: Record<string, unknown> = { action: ACTIONS[e.action] ?? e.action.toLowerCase(), id: e.object_id };
          for (const k of ITEM_DETAILS) if (d[k] !== undefined) item[k] = d[k];
          return item;
        }),
      };
  }
}
