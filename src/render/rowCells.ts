import type { ApiCell, PresentCellOptions } from '../engine/display.ts';
import { presentRowCells } from '../engine/display.ts';
import type { ColumnDef } from '../engine/columns.ts';
import type { RowState, SheetModel } from '../engine/model.ts';
import type { AccessLevel } from '../services/access/access.ts';
import type { ReadOptions } from '../services/platform/context.ts';
import type { LinkOut } from '../services/computed/cellLinks.ts';
import type { UserLookup } from '../services/sheets/sheetReads.ts';
import { permalink } from './permalinks.ts';
import { scheduleOf } from '../services/computed/schedule.ts';

/**
 * The cells of a row as a reader sees them (display values, formulas, links, conditional
 * formats), for every form a sheet is shown in: the API's JSON (http/present/sheetContents.ts),
 * CSV, Excel and PDF files, mail bodies and published pages.
 */
export interface RowPresentOptions {
  ro: ReadOptions;
  level: AccessLevel;
  users: UserLookup;
  permalinkBase: string;
  /** Present these columns only (columnIds filter), sorted by index. */
  columns?: ColumnDef[];
  /** The sheet's outbound cell links, keyed `rowId:columnId` (services/computed/cellLinks.ts linksOut). */
  linksOut?: ReadonlyMap<string, readonly LinkOut[]>;
  /** With include=filters or filterId: the rows the applied filter hides (every row then shows filteredOut). */
  filteredOut?: ReadonlySet<number>;
  /** With include=format: conditional formats by row, then column (services/sheets/filters.ts). */
  conditionalFormats?: ReadonlyMap<number, ReadonlyMap<number, string>>;
  /** With include=attachments / discussions: each row's, presented (http/present/threads.ts). */
  threads?: RowThreads;
}

export interface RowThreads {
  attachments: ReadonlyMap<number, unknown[]>;
  discussions: ReadonlyMap<number, unknown[]>;
}

/** Cell presentation options shared by every row of one response. */
const cellOptionsCache = new WeakMap<RowPresentOptions, Omit<PresentCellOptions, 'rowId'>>();

export function cellOptions(model: SheetModel, o: RowPresentOptions): Omit<PresentCellOptions, 'rowId'> {
  let c = cellOptionsCache.get(o);
  if (c === undefined) {
    const ro = o.ro;
    // predecessor objects say which are invalid and which lie on the critical path (a project
    // sheet's schedule, computed once per version)
    const schedule = ro.include.has('objectValue') && model.columns.some((col) => col.type === 'PREDECESSOR') ? scheduleOf(model) : undefined;
    c = {
      level: ro.level,
      numericDates: ro.numericDates,
      includeObjectValue: ro.include.has('objectValue'),
      includeFormat: ro.include.has('format'),
      includeColumnType: ro.include.has('columnType'),
      rowNumberOf: (id) => model.tree.rowNumberOf(id),
      permalinkOf: (kind, id) => permalink({ publicUrl: o.permalinkBase }, kind, id),
    };
    if (schedule !== undefined) {
      c.invalidPredecessors = schedule.invalid;
      c.criticalPredecessors = schedule.critical;
    }
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
    conditionalFormats: o.conditionalFormats?.get(row.id),
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
