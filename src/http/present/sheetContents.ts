import { presentColumn, type ApiColumn, type ColumnDef } from '../../engine/columns.ts';
import { cellJson, presentRowCells, type CellJson, type PresentCellOptions } from '../../engine/display.ts';
import type { StoredContact } from '../../engine/contacts.ts';
import type { StoredCell } from '../../engine/cells.ts';
import { isDefaultFormat } from '../../engine/format.ts';
import { atLeast, presentAccessLevel, type AccessLevel } from '../../services/access/access.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import type { RowState, SheetModel } from '../../engine/model.ts';
import type { SheetRow } from '../../store/sheets.ts';
import { ts } from './dates.ts';
import { permalink } from '../../render/permalinks.ts';
import { cellOptions, rowCells, type RowPresentOptions } from '../../render/rowCells.ts';
import { giveBackBodyBuffer, takeBodyBuffer } from './bodyBuffers.ts';
import { columnFormulaText } from '../../services/computed/formulas.ts';
import { showsWriters } from '../../services/sheets/sheetReads.ts';
import { holdUntilIdle } from '../../idleMemory.ts';

/** Users referenced by rows (created/modified by), for system columns and writerInfo. */
export type { UserLookup } from '../../services/sheets/sheetReads.ts';

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
  if (o.filteredOut !== undefined) out.filteredOut = o.filteredOut.has(row.id);
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
  if (ro.include.has('discussions')) out.discussions = o.threads?.discussions.get(row.id) ?? [];
  if (ro.include.has('attachments')) out.attachments = o.threads?.attachments.get(row.id) ?? [];
  out.cells = rowCells(model, row, o);
  return out;
}

/**
 * JSON text written as UTF-8 straight into one growing Buffer: the pieces of a large response
 * die young instead of being held (as one huge rope of small strings) until the end, and the
 * Buffer goes to the socket as it is.
 */
export class JsonWriter {
  private buf: Buffer;
  private len = 0;
  /** Bytes already handed to `parts` (see the constructor). */
  private handed = 0;

  /**
   * `parts`, when given, is handed the text as it is written, a piece of at least PART_BYTES at
   * a time (the rest: `unhanded()`); the pieces are views of the writer's Buffers, which are then
   * never given back for reuse before the writer is released.
   */
  constructor(capacity = 64 * 1024, private readonly parts?: (piece: Buffer) => void) {
    this.buf = takeBodyBuffer(Math.max(1024, capacity));
  }

  write(s: string): void {
    // at most 3 bytes per UTF-16 unit
    if (this.len + s.length * 3 > this.buf.length) this.grow(s.length * 3);
    this.len += this.buf.write(s, this.len);
    if (this.parts !== undefined && this.len - this.handed >= PART_BYTES) {
      this.parts(this.buf.subarray(this.handed, this.len));
      this.handed = this.len;
    }
  }

  private grow(need: number): void {
    // by half, not double: a large body outgrows its estimate by a little, and a doubled Buffer
    // of tens of MB would be mostly empty
    const next = takeBodyBuffer(Math.max(this.buf.length + (this.buf.length >> 1), this.len + need));
    this.buf.copy(next, 0, 0, this.len);
    // pieces handed out may still be read from the old one: it is left to the collector then
    if (this.parts === undefined) giveBackBodyBuffer(this.buf);
    this.buf = next;
  }

  toBuffer(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  /** What was written after the last piece handed to `parts`. */
  unhanded(): Buffer {
    return this.buf.subarray(this.handed, this.len);
  }

  /** Call when the Buffer of toBuffer() is no longer used (its response finished): it may serve the next one. */
  release(): void {
    giveBackBodyBuffer(this.buf);
  }
}

/** Pieces handed on while writing (JsonWriter `parts`). */
const PART_BYTES = 1024 * 1024;

/**
 * The JSON of a row's cells (`"cells":[...]}` on) is kept from one response to the next while
 * the row's cells object is the same (writers replace it, never change it in place) and the
 * response is presented the same way (`CellsFormat`). A repeated read of an unchanged sheet
 * then copies bytes instead of presenting 500,000 cells again.
 */
interface CachedCells {
  format: CellsFormat;
  cells: RowState['cells'];
  json: string;
}
let cachedCells = new WeakMap<RowState, CachedCells>();
/** Characters of text kept since the last release (rows kept again counted again: an estimate). */
let cellsKept = 0;
/**
 * The text is kept for reads that follow one another, not for a server gone quiet: it is about as
 * large as the body (35 MB for 500,000 short cells, more than the model itself), and the first
 * read after a quiet spell presents the cells again (http/idleMemory.ts).
 */
holdUntilIdle({
  busy: () => false,
  holds: () => cellsKept,
  release: () => {
    cachedCells = new WeakMap();
    cellsKept = 0;
  },
});

/**
 * How cells are presented by the responses whose rows' JSON is kept: one presentation per model
 * at a time (one copy of the sheet's cells as text). Readers who ask for another presentation
 * (another access level, other include values, other columns) get theirs written afresh and
 * kept nowhere, so callers with different views do not replace each other's text on every read,
 * which would turn over tens of MB each time. The presentation kept changes when the one before
 * can no longer be asked for (the columns, the formulas or, for text that shows row numbers, the
 * version changed) or nobody asked for it for TAKE_OVER_MS.
 */
interface CellsFormat {
  /** What the model gives every presentation: its columns, and the version where that matters. */
  dataKey: string;
  /** What this presentation chose: columns, access level, options. */
  viewKey: string;
  /** The project schedule it shows (predecessors' objectValue), as identities of its edge sets. */
  scheduleKey: string;
  engine: SheetModel['formulas'];
  lastUsed: number;
  /**
   * The rows its last response presented. A view that presents more takes the place at once:
   * the few rows a write answers with, in a view of their own, do not keep a whole-sheet read
   * from being kept.
   */
  rows: number;
}
const cellsFormats = new WeakMap<SheetModel, CellsFormat>();

/** A number for an object, the same while it lives (0 for none): what a key can hold of a set. */
const identities = new WeakMap<object, number>();
let lastIdentity = 0;
function identityOf(o: object | undefined): number {
  if (o === undefined) return 0;
  let n = identities.get(o);
  if (n === undefined) identities.set(o, (n = ++lastIdentity));
  return n;
}
const TAKE_OVER_MS = 10_000;

/**
 * The presentation of a response's cells whose rows' JSON is kept, or undefined when nothing is
 * kept for it: cells that show who created or modified the row (user names change without the
 * sheet changing), or another presentation of as many rows or more holds the model's place.
 */
function cellsFormatOf(model: SheetModel, cols: readonly ColumnDef[], copts: Omit<PresentCellOptions, 'rowId'>, skipEmpty: boolean, rowCount: number): CellsFormat | undefined {
  if (cols.some((c) => c.systemColumnType === 'CREATED_BY' || c.systemColumnType === 'MODIFIED_BY')) return undefined;
  const engine = model.formulas;
  // formula text shows row numbers and titles of other rows: kept for this version only;
  // predecessors show other rows' numbers (and with objectValue, the schedule's invalid and
  // critical edges): kept while the rows' order and the schedule are the same
  const byVersion = engine !== undefined && engine !== null;
  const byOrder = !byVersion && cols.some((c) => c.type === 'PREDECESSOR');
  const dataKey = JSON.stringify([model.columns, byVersion ? model.version : byOrder ? `order ${model.tree.orderStamp}` : null]);
  // only the views with objectValue show the schedule (cellOptions gives them its edges)
  const scheduleKey = byOrder ? `${identityOf(copts.invalidPredecessors)} ${identityOf(copts.criticalPredecessors)}` : '';
  const viewKey = JSON.stringify([cols.map((c) => c.id), copts.level, copts.numericDates, copts.includeObjectValue, copts.includeFormat, copts.includeColumnType, skipEmpty]);
  const now = Date.now();
  const f = cellsFormats.get(model);
  if (f !== undefined && f.dataKey === dataKey && f.engine === engine) {
    if (f.viewKey === viewKey) {
      if (f.scheduleKey === scheduleKey) {
        f.lastUsed = now;
        f.rows = rowCount;
        return f;
      }
      // the same view of a schedule computed again: the one before can no longer be asked for
    } else if (now - f.lastUsed <= TAKE_OVER_MS && f.rows >= rowCount) return undefined;
  }
  const next = { dataKey, viewKey, scheduleKey, engine, lastUsed: now, rows: rowCount };
  cellsFormats.set(model, next);
  return next;
}

/**
 * Writes the JSON text of `rows.map((r) => presentRow(model, r, o))` to `w`, directly: each
 * column's cells through a presenter compiled once for the response (display.ts
 * cellJson), the cells it does not handle through presentCell, no Row or Cell objects
 * in between; a row's cells from the cache when they did not change.
 */
export function writeRowsJson(w: JsonWriter, model: SheetModel, rows: readonly RowState[], o: RowPresentOptions): void {
  const ro = o.ro;
  const tree = model.tree;
  const cols = o.columns ?? model.columns;
  const copts = cellOptions(model, o);
  const skipEmpty = ro.exclude.has('nonexistentCells');
  const format = cellsFormatOf(model, cols, copts, skipEmpty, rows.length);
  const hasSystem = cols.some((c) => c.systemColumnType !== undefined);
  // each column's position: a row's cells are walked once (for-in) into `byPosition`; loading
  // them one by one by column key is several times slower (numeric-string property names)
  const positions = new Map(cols.map((c, i) => [String(c.id), i]));
  const byPosition: Array<StoredCell | undefined> = new Array(cols.length);
  let compiled: Array<CellJson | null> | undefined;
  const engine = model.formulas ?? undefined;
  const isAdmin = atLeast(o.level, 'ADMIN');
  const lockedText = `,"locked":true,"lockedForUser":${!isAdmin}`;
  const access = `,"accessLevel":${JSON.stringify(presentAccessLevel(o.level, ro.accessApiLevel))}`;
  const sheetText = `,"sheetId":${JSON.stringify(model.sheetId)},"rowNumber":`;
  const withFormat = ro.include.has('format');
  const withWriter = ro.include.has('writerInfo');
  const permalinkBase = ro.include.has('rowPermalink') ? `${permalink({ publicUrl: o.permalinkBase }, 'sheets', model.sheetId)}?rowId=` : undefined;
  const threads = o.threads;
  const noThreads = `${ro.include.has('discussions') ? ',"discussions":[]' : ''}${ro.include.has('attachments') ? ',"attachments":[]' : ''},"cells":[`;
  const extrasOf = (id: number): string => {
    if (threads === undefined) return noThreads;
    const d = ro.include.has('discussions') ? `,"discussions":${JSON.stringify(threads.discussions.get(id) ?? [])}` : '';
    const a = ro.include.has('attachments') ? `,"attachments":${JSON.stringify(threads.attachments.get(id) ?? [])}` : '';
    return `${d}${a},"cells":[`;
  };
  const times = new Map<number, string>();
  const time = (ms: number): string => {
    let t = times.get(ms);
    if (t === undefined) {
      t = JSON.stringify(ts(ms, ro.numericDates));
      times.set(ms, t);
    }
    return t;
  };
  const user = (c: StoredContact | undefined) => (c === undefined ? undefined : JSON.stringify({ email: c.email, name: c.name ?? c.email }));
  // rows with links out, or whose link details are cut, are presented the general way
  const linkedOut = new Set<number>();
  if (o.linksOut !== undefined) for (const key of o.linksOut.keys()) linkedOut.add(Number(key.slice(0, key.indexOf(':'))));
  const cutsLinkDetails = ro.exclude.has('linkInFromCellDetails');
  const cf = o.conditionalFormats;
  const general = (row: RowState): boolean => linkedOut.has(row.id) || (cf !== undefined && cf.has(row.id)) || (cutsLinkDetails && Object.values(row.cells).some((c) => c.li !== undefined));
  const hidden = o.filteredOut;
  let firstRow = true;
  w.write('[');
  for (const row of rows) {
    if (general(row)) {
      w.write(`${firstRow ? '' : ','}${JSON.stringify(presentRow(model, row, o))}`);
      firstRow = false;
      continue;
    }
    const id = row.id;
    const node = tree.get(id)!;
    const parentId = tree.parentOf(id);
    const siblingId = tree.siblingIdOf(id);
    let s = `${firstRow ? '' : ','}{"id":${id}${sheetText}${tree.rowNumberOf(id)!}`;
    if (parentId !== null) s += `,"parentId":${parentId}`;
    if (siblingId !== undefined) s += `,"siblingId":${siblingId}`;
    s += node.expanded ? ',"expanded":true' : ',"expanded":false';
    if (hidden !== undefined) s += hidden.has(id) ? ',"filteredOut":true' : ',"filteredOut":false';
    if (node.locked) s += lockedText;
    s += `${access},"createdAt":${time(row.createdAt)},"modifiedAt":${time(row.modifiedAt)}`;
    if (withFormat && row.format !== undefined && !isDefaultFormat(row.format)) s += `,"format":${JSON.stringify(row.format)}`;
    if (withWriter) {
      const cb = user(o.users(row.createdBy));
      const mb = user(o.users(row.modifiedBy));
      if (cb !== undefined) s += `,"createdBy":${cb}`;
      if (mb !== undefined) s += `,"modifiedBy":${mb}`;
    }
    if (permalinkBase !== undefined) s += `,"permalink":${JSON.stringify(permalinkBase + id.toString(36))}`;
    w.write(s + extrasOf(id));
    firstRow = false;
    const cells = row.cells;
    if (format !== undefined) {
      const hit = cachedCells.get(row);
      if (hit !== undefined && hit.format === format && hit.cells === cells) {
        w.write(hit.json);
        continue;
      }
    }
    compiled ??= cols.map((c) => (c.systemColumnType !== undefined && c.systemColumnType !== 'AUTO_NUMBER' ? null : cellJson(c, copts, skipEmpty)));
    const system = hasSystem ? { createdAt: row.createdAt, modifiedAt: row.modifiedAt, createdBy: o.users(row.createdBy), modifiedBy: o.users(row.modifiedBy) } : undefined;
    byPosition.fill(undefined);
    for (const key in cells) {
      const at = positions.get(key);
      if (at !== undefined) byPosition[at] = cells[key];
    }
    let c = '';
    for (let i = 0; i < cols.length; i++) {
      const col = cols[i]!;
      const formula = engine === undefined ? undefined : engine.formulaOf(id, col.id);
      const fast = compiled[i]!;
      let cell = fast === null ? null : fast.json(byPosition[i], formula, id);
      if (cell === null) {
        const api = presentRowCells([col], cells, { ...copts, rowId: id, system })[0]!;
        if (formula !== undefined) api.formula = formula;
        cell = skipEmpty && !Object.keys(api).some((k) => k !== 'columnId' && k !== 'columnType') ? '' : JSON.stringify(api);
      }
      if (cell === '') continue;
      c += c === '' ? cell : ',' + cell;
    }
    const json = c + ']}';
    w.write(json);
    if (format !== undefined) {
      cachedCells.set(row, { format, cells, json });
      cellsKept += json.length;
    }
  }
  w.write(']');
}

/**
 * What decides the text writeRowsJson writes for `rows` of `model` at its version, besides the
 * rows themselves: two requests with the same key may be sent the same bytes (present/sheetBodies.ts).
 * Everything that can change without a new sheet version is in it as the request found it
 * (user names, links out to other sheets, filters, conditional formats).
 */
export function rowsJsonKey(model: SheetModel, rows: readonly RowState[], o: RowPresentOptions): string {
  const ro = o.ro;
  const cols = o.columns ?? model.columns;
  const users: Array<[number, StoredContact | undefined]> = [];
  if (showsWriters(cols, ro)) {
    const ids = new Set<number>();
    for (const r of rows) {
      if (r.createdBy !== null) ids.add(r.createdBy);
      if (r.modifiedBy !== null) ids.add(r.modifiedBy);
    }
    for (const id of ids) users.push([id, o.users(id)]);
  }
  return JSON.stringify([
    o.level, [...ro.include].sort(), [...ro.exclude].sort(), ro.numericDates, ro.level, ro.accessApiLevel, o.permalinkBase,
    cols.map((c) => c.id),
    o.linksOut === undefined ? null : [...o.linksOut],
    o.filteredOut === undefined ? null : [...o.filteredOut].sort((a, b) => a - b),
    o.conditionalFormats === undefined ? null : [...o.conditionalFormats].map(([id, m]) => [id, [...m]]),
    users,
    // the rows' discussions and attachments, as the request read them (they change without a new version)
    ro.include.has('discussions') ? [...(o.threads?.discussions ?? [])] : null,
    ro.include.has('attachments') ? [...(o.threads?.attachments ?? [])] : null,
  ]);
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
