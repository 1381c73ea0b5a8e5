import { presentColumn, type ApiColumn, type ColumnDef } from '../../engine/columns.ts';
import { presentRowCells, type ApiCell, type PresentCellOptions } from '../../engine/display.ts';
import type { StoredContact } from '../../engine/contacts.ts';
import { isDefaultFormat } from '../../engine/format.ts';
import { atLeast, presentAccessLevel, type AccessLevel } from '../../services/access.ts';
import type { ReadOptions } from '../../services/context.ts';
import type { RowState, SheetModel } from '../../services/sheetModel.ts';
import type { SheetRow } from '../../store/sheets.ts';
import { ts } from '../present.ts';
import { permalink } from './permalinks.ts';
import { columnFormulaText } from '../../services/formulas.ts';
import type { LinkOut } from '../../services/cellLinks.ts';

/** Users referenced by rows (created/modified by), for system columns and writerInfo. */
export type UserLookup = (id: number | null) => StoredContact | undefined;

export interface RowPresentOptions {
  ro: ReadOptions;
  level: AccessLevel;
  users: UserLookup;
  permalinkBase: string;
  /** Present these columns only (columnIds filter), sorted by index. */
  columns?: ColumnDef[];
  /** The sheet's outbound cell links, keyed `rowId:columnId` (services/cellLinks.ts linksOut). */
  linksOut?: ReadonlyMap<string, readonly LinkOut[]>;
}

/** A row's position in the sheet (row numbers are kept by the tree until it changes). */
function positionOf(model: SheetModel, id: number) {
  const t = model.tree;
  const node = t.get(id)!;
  const parentId = t.parentOf(id);
  return { rowNumber: t.rowNumberOf(id)!, parentId: parentId ?? undefined, siblingId: t.siblingIdOf(id), expanded: node.expanded, locked: node.locked };
}

export function presentRow(model: SheetModel, row: RowState, o: RowPresentOptions) {
  const p = positionOf(model, row.id);
  const ro = o.ro;
  const isAdmin = atLeast(o.level, 'ADMIN');
  const out: Record<string, unknown> = {
    id: row.id,
    sheetId: model.sheetId,
    rowNumber: p.rowNumber,
  };
  if (p.parentId !== undefined) out.parentId = p.parentId;
  if (p.siblingId !== undefined) out.siblingId = p.siblingId;
  out.expanded = p.expanded;
  if (p.locked) {
    out.locked = true;
    out.lockedForUser = !isAdmin;
  }
  out.accessLevel = presentAccessLevel(o.level, ro.accessApiLevel);
  out.createdAt = ts(row.createdAt, ro.numericDates);
  out.modifiedAt = ts(row.modifiedAt, ro.numericDates);
  if (ro.include.has('format') && row.format !== undefined && !isDefaultFormat(row.format)) out.format = row.format;
  if (ro.include.has('writerInfo')) {
    const cb = o.users(row.createdBy);
    const mb = o.users(row.modifiedBy);
    if (cb) out.createdBy = { email: cb.email, name: cb.name ?? cb.email };
    if (mb) out.modifiedBy = { email: mb.email, name: mb.name ?? mb.email };
  }
  if (ro.include.has('rowPermalink')) out.permalink = `${permalink({ publicUrl: o.permalinkBase }, 'sheets', model.sheetId)}?rowId=${row.id.toString(36)}`;
  if (ro.include.has('discussions')) out.discussions = [];
  if (ro.include.has('attachments')) out.attachments = [];
  out.cells = rowCells(model, row, o);
  return out;
}

/** Cell presentation options shared by every row of one response. */
const cellOptionsCache = new WeakMap<RowPresentOptions, Omit<PresentCellOptions, 'rowId'>>();

function cellOptions(model: SheetModel, o: RowPresentOptions): Omit<PresentCellOptions, 'rowId'> {
  let c = cellOptionsCache.get(o);
  if (c === undefined) {
    const ro = o.ro;
    c = {
      level: ro.level,
      numericDates: ro.numericDates,
      includeObjectValue: ro.include.has('objectValue'),
      includeFormat: ro.include.has('format'),
      includeColumnType: ro.include.has('columnType'),
      rowNumberOf: (id) => model.tree.rowNumberOf(id),
    };
    cellOptionsCache.set(o, c);
  }
  return c;
}

export function rowCells(model: SheetModel, row: RowState, o: RowPresentOptions): ApiCell[] {
  const ro = o.ro;
  const cols = o.columns ?? model.columns;
  const hasSystem = cols.some((c) => c.systemColumnType !== undefined);
  const cells = presentRowCells(cols, row.cells, {
    ...cellOptions(model, o),
    rowId: row.id,
    system: hasSystem ? { createdAt: row.createdAt, modifiedAt: row.modifiedAt, createdBy: o.users(row.createdBy), modifiedBy: o.users(row.modifiedBy) } : undefined,
  });
  const engine = model.formulas;
  if (engine) {
    for (const c of cells) {
      const text = engine.formulaOf(row.id, c.columnId);
      if (text !== undefined) c.formula = text;
    }
  }
  if (o.linksOut !== undefined && o.linksOut.size > 0) {
    for (const c of cells) {
      const out = o.linksOut.get(`${row.id}:${c.columnId}`);
      if (out !== undefined) c.linksOutToCells = ro.exclude.has('linksOutToCellsDetails') ? out.map((l) => ({ sheetId: l.sheetId, sheetName: l.sheetName })) : out.map((l) => ({ ...l }));
    }
  }
  if (ro.exclude.has('linkInFromCellDetails')) {
    for (const c of cells) if (c.linkInFromCell !== undefined) c.linkInFromCell = { sheetId: c.linkInFromCell.sheetId, sheetName: c.linkInFromCell.sheetName };
  }
  if (ro.exclude.has('nonexistentCells')) return cells.filter((c) => Object.keys(c).some((k) => k !== 'columnId' && k !== 'columnType'));
  return cells;
}

export function presentColumns(model: SheetModel, ro: ReadOptions, level: AccessLevel, only?: ColumnDef[]): ApiColumn[] {
  return (only ?? model.columns).map((c) => presentModelColumn(model, c, ro.level, ro.include.has('format'), atLeast(level, 'ADMIN')));
}

/** A column of a model: its column formula rendered with current titles and row numbers. */
export function presentModelColumn(model: SheetModel, c: ColumnDef, level: number, includeFormat: boolean, isSheetAdmin: boolean): ApiColumn {
  const out = presentColumn(c, { level, includeFormat, isSheetAdmin });
  if (c.formula !== undefined) out.formula = columnFormulaText(model, c);
  return out;
}

export function sheetSummary(sheet: SheetRow, level: AccessLevel, ro: ReadOptions, permalinkBase: string) {
  return {
    id: sheet.id,
    name: sheet.name,
    version: sheet.version,
    accessLevel: presentAccessLevel(level, ro.accessApiLevel),
    permalink: permalink({ publicUrl: permalinkBase }, 'sheets', sheet.id),
    createdAt: ts(sheet.created_at, ro.numericDates),
    modifiedAt: ts(sheet.modified_at, ro.numericDates),
  };
}
