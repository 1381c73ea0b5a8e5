import type { Config } from '../../config.ts';
import { columnVersion, typeAtLevel, DEFAULT_COLUMN_WIDTH, type ColumnDef } from '../../engine/columns.ts';
import type { ApiCell } from '../../engine/display.ts';
import type { ReportColumnDef, ReportDefinition, ReportFilter } from '../../engine/reports.ts';
import { atLeast, presentAccessLevel, type AccessLevel } from '../../services/access/access.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import type { ReportData, ReportDefinitionView, ReportRowRef } from '../../services/assets/reports.ts';
import type { ReportRow } from '../../store/reports.ts';
import { ts } from './dates.ts';
import { permalink } from '../../render/permalinks.ts';
import { addOwnerInfo, type OwnerEmails } from './owners.ts';
import { rowCells, type RowPresentOptions, type RowThreads } from '../../render/rowCells.ts';
import type { TableCell } from '../../render/xlsx.ts';

/** The abbreviated Report of List Reports and of folder, workspace and Home contents. */
export function reportSummary(config: Config, r: ReportRow, level: AccessLevel, ro: ReadOptions, opts: { favorite?: boolean; owners?: OwnerEmails } = {}) {
  const out: Record<string, unknown> = {
    id: r.id,
    name: r.name,
    accessLevel: presentAccessLevel(level, ro.accessApiLevel),
    permalink: permalink(config, 'reports', r.id),
    isSummaryReport: false,
    createdAt: ts(r.created_at, ro.numericDates),
    modifiedAt: ts(r.modified_at, ro.numericDates),
  };
  addOwnerInfo(out, r.owner_id, ro, opts.owners);
  if (opts.favorite) out.favorite = true;
  return out;
}

/** A ReportColumn: the column's attributes as the report defines them, with its virtualId. */
export function reportColumn(c: ReportColumnDef, index: number, ro: ReadOptions) {
  const version = columnVersion(c.type);
  const out: Record<string, unknown> = {
    virtualId: c.virtualId, version, index, title: c.title, type: typeAtLevel({ type: c.type, version }, ro.level),
    hidden: c.hidden === true, width: c.width ?? DEFAULT_COLUMN_WIDTH, validation: false,
  };
  if (c.primary) out.primary = true;
  if (c.sheetNameColumn) out.sheetNameColumn = true;
  if (c.systemColumnType !== undefined) out.systemColumnType = c.systemColumnType;
  return out;
}

/** The definition as the sheetd extension shows it (what create and update take). */
export function reportDefinition(config: Config, v: ReportDefinitionView, ro: ReadOptions) {
  const r = v.report;
  const def: ReportDefinition = v.definition;
  const refOf = (c: ReportColumnDef) => {
    const out: Record<string, unknown> = { virtualId: c.virtualId, title: c.title, type: c.type };
    if (c.primary) out.primary = true;
    if (c.sheetNameColumn) out.sheetNameColumn = true;
    if (c.systemColumnType !== undefined) out.systemColumnType = c.systemColumnType;
    if (c.width !== undefined) out.width = c.width;
    if (c.hidden) out.hidden = true;
    return out;
  };
  const out: Record<string, unknown> = {
    id: r.id,
    name: r.name,
    ownerId: r.owner_id,
    accessLevel: presentAccessLevel(v.level, ro.accessApiLevel),
    permalink: permalink(config, 'reports', r.id),
    location: r.folder_id !== null ? { destinationType: 'folder', destinationId: r.folder_id } : r.workspace_id !== null ? { destinationType: 'workspace', destinationId: r.workspace_id } : { destinationType: 'home', destinationId: null },
    scope: { sheets: v.sources.sheets.map((id) => ({ id })), workspaces: v.sources.workspaces.map((id) => ({ id })) },
    columns: def.columns.map(refOf),
    createdAt: ts(r.created_at, ro.numericDates),
    modifiedAt: ts(r.modified_at, ro.numericDates),
  };
  Object.assign(out, reportDefinitionParts(def));
  return out;
}

/** A filter as the client wrote it (values such as `{objectType: 'DATE'}` as sent). */
function presentFilter(f: ReportFilter): Record<string, unknown> {
  return {
    operator: f.operator,
    criteria: f.criteria.map((c) => {
      const out: Record<string, unknown> = { column: c.column, operator: c.sent?.operator ?? c.operator };
      const values = c.sent?.values ?? c.values;
      if (values !== undefined) out.values = values;
      return out;
    }),
    nestedCriteria: f.nestedCriteria.map(presentFilter),
  };
}

/** The SDK's ReportDefinition (Get Report Definition): filters, grouping, summarizing and sorting criteria, those set. */
export function reportDefinitionParts(def: ReportDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (def.filters !== undefined) out.filters = presentFilter(def.filters);
  if (def.groupingCriteria !== undefined) out.groupingCriteria = def.groupingCriteria;
  if (def.summarizingCriteria !== undefined) out.summarizingCriteria = def.summarizingCriteria;
  if (def.sortingCriteria !== undefined) out.sortingCriteria = def.sortingCriteria;
  return out;
}

export interface ReportCellsOptions {
  ro: ReadOptions;
  users: RowPresentOptions['users'];
  permalinkBase: string;
  /** include=attachments / discussions: each source sheet's rows', presented. */
  threads?: ReadonlyMap<number, RowThreads>;
}

/** The cells of a report row, one per report column: the source cell with its `virtualColumnId`. */
export function reportCells(def: ReportDefinition, ref: ReportRowRef, o: ReportCellsOptions): Array<{ cell: ApiCell | Record<string, unknown>; stored?: TableCell['stored'] }> {
  const { source, row } = ref;
  const mapped = source.compiled.columns;
  const present = mapped.filter((c): c is ColumnDef => c !== undefined);
  const cells = present.length === 0 ? [] : rowCells(source.model, row, { ro: o.ro, level: source.level, users: o.users, permalinkBase: o.permalinkBase, columns: present });
  let k = 0;
  return def.columns.map((c, i) => {
    if (c.sheetNameColumn) return { cell: { columnId: c.virtualId, virtualColumnId: c.virtualId, value: source.sheet.name, displayValue: source.sheet.name }, stored: source.sheet.name };
    const col = mapped[i];
    if (col === undefined) return { cell: { virtualColumnId: c.virtualId } };
    const cell = cells[k++]!;
    return { cell: { ...cell, virtualColumnId: c.virtualId }, stored: row.cells[String(col.id)]?.v };
  });
}

/** A ReportRow: the source row with its sheetId, the caller's level on that sheet, and report cells. */
export function reportRow(def: ReportDefinition, ref: ReportRowRef, o: ReportCellsOptions) {
  const { source, row } = ref;
  const t = source.model.tree;
  const ro = o.ro;
  const out: Record<string, unknown> = { id: row.id, sheetId: source.sheet.id, rowNumber: t.rowNumberOf(row.id) };
  const sibling = t.siblingIdOf(row.id);
  if (sibling !== undefined) out.siblingId = sibling;
  out.expanded = t.get(row.id)?.expanded ?? true;
  if (t.get(row.id)?.locked) {
    out.locked = true;
    out.lockedForUser = !atLeast(source.level, 'ADMIN');
  }
  out.accessLevel = presentAccessLevel(source.level, ro.accessApiLevel);
  out.createdAt = ts(row.createdAt, ro.numericDates);
  out.modifiedAt = ts(row.modifiedAt, ro.numericDates);
  if (ro.include.has('format') && row.format !== undefined) out.format = row.format;
  const threads = o.threads?.get(source.sheet.id);
  if (ro.include.has('discussions')) out.discussions = threads?.discussions.get(row.id) ?? [];
  if (ro.include.has('attachments')) out.attachments = threads?.attachments.get(row.id) ?? [];
  out.cells = reportCells(def, ref, o).map((c) => c.cell);
  return out;
}

/** Get Report as JSON: the report, its columns, the page of rows; scope, sourceSheets and source when asked. */
export function reportBody(config: Config, data: ReportData, page: readonly ReportRowRef[], o: ReportCellsOptions) {
  const ro = o.ro;
  const r = data.report;
  const out: Record<string, unknown> = {
    ...reportSummary(config, r, data.level, { ...ro, include: new Set() }),
    ownerId: r.owner_id,
    totalRowCount: data.rows.length,
    columns: data.definition.columns.map((c, i) => reportColumn(c, i, ro)),
    rows: page.map((ref) => reportRow(data.definition, ref, o)),
  };
  if (ro.include.has('scope')) {
    out.scope = {
      sheets: data.sheets.map((s) => ({ id: s.sheet.id, name: s.sheet.name })),
      workspaces: data.workspaces.map((w) => ({ id: w.id, name: w.name })),
    };
  }
  if (ro.include.has('sourceSheets')) {
    out.sourceSheets = data.sheets.map((s) => ({
      id: s.sheet.id, name: s.sheet.name, accessLevel: presentAccessLevel(s.level, ro.accessApiLevel), permalink: permalink(config, 'sheets', s.sheet.id),
      createdAt: ts(s.sheet.created_at, ro.numericDates), modifiedAt: ts(s.sheet.modified_at, ro.numericDates),
      columns: s.model.columns.map((c) => ({ id: c.id, index: c.index, title: c.title, type: typeAtLevel(c, ro.level), primary: c.primary === true, version: c.version })),
    }));
  }
  return out;
}
