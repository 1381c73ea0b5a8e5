import { deleteImagesReleasingBlobs, insertImage } from '../../store/images.ts';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../blobs/index.ts';
import type { StoredCell } from '../../engine/cells.ts';
import { convertCell } from '../../engine/convert.ts';
import {
  err, evaluate, inputToScalar, parseFormula, summaryRefTitle, toFormulaResult,
  type ColumnId, type CrossSheetData, type ErrorValue, type EvalContext, type RangeValue, type RowId, type Scalar,
} from '../../engine/formula/index.ts';
import { fromIdentityForm, remapIdentityFormula, resultToStored, sheetSchema, storedToRaw, toIdentityForm } from '../../engine/formulaBridge.ts';
import { asObject, bodyId, isObject, type Obj } from '../../engine/input.ts';
import {
  applyDefinition, changesDefinition, fieldColumn, MAX_SUMMARY_FIELDS, readDefinition, uniqueTitle,
  type SummaryFieldDef,
} from '../../engine/summary.ts';
import { parseCellWrite } from '../../engine/values.ts';
import { apiError, type ApiError } from '../../errors.ts';
import { apiErrorOf } from '../platform/errors.ts';
import { newId } from '../../ids.ts';
import type { Queryable, Store } from '../../store/db.ts';
import {
  deleteSummaryFields as deleteRecords, insertSummaryFields, listSummaryFields, setSummaryFieldIndex, updateSummaryField,
  type SummaryFieldRecord,
} from '../../store/summary.ts';
import { findUsersByIds } from '../../store/users.ts';
import type { StoredContact } from '../../engine/contacts.ts';
import { atLeast, type AccessLevel } from '../access/access.ts';
import { nameOrEmail, type Actor } from '../platform/context.ts';
import { applyChanges, keepUnsaved } from './formulas.ts';
import { copyCellImages, newImageId, storeImage } from '../sheets/images.ts';
import { loadModel, onSheetRead, readSheet } from '../sheets/sheetCache.ts';
import { onSheetWrite, writeSheet, type WriteContext } from '../sheets/sheetWrites.ts';
import type { SheetModel } from '../../engine/model.ts';
import type { SheetRow } from '../../store/sheets.ts';
import { queueBlobDeletion } from '../collaboration/attachments.ts';
import { loadCellTargets, type CellTargets } from '../sheets/cellTargets.ts';
import { clock } from '../../clock.ts';

/**
 * Sheet summary fields. A field is a column-like definition with one cell (engine/summary.ts):
 * values are parsed, converted and shown like cells of a column of that definition. Fields live
 * in `summary_fields`; a sheet's fields are kept with its cached model (valid for the model's
 * version, like the model itself). Every change is a write of the sheet (writeSheet): the sheet
 * is locked, its version goes up and SUMMARY_FIELD events are recorded in that transaction.
 *
 * Formulas of summary fields read the sheet's cells and other fields (`[Title]#`); they are
 * computed after every write of the sheet (the `written` hook), so a field follows its inputs.
 * Cell formulas read fields through the same `[Title]#` (the formula engine asks for them as it
 * asks for `{Cross-sheet}` data), and are recomputed when a field they read changes.
 */
export interface SummaryField {
  def: SummaryFieldDef;
  /** The content; formulas in identity form as cells store them. */
  cell: StoredCell;
  createdAt: number;
  createdBy: number | null;
  modifiedAt: number;
  modifiedBy: number | null;
}

interface Cached {
  version: number;
  fields: SummaryField[];
}

const cache = new WeakMap<SheetModel, Cached>();

function fromRecord(r: SummaryFieldRecord): SummaryField {
  const def = JSON.parse(r.def) as Omit<SummaryFieldDef, 'id' | 'index' | 'title'>;
  return {
    def: { ...def, id: r.id, index: r.idx, title: r.title },
    cell: JSON.parse(r.cell) as StoredCell,
    createdAt: r.created_at,
    createdBy: r.created_by,
    modifiedAt: r.modified_at,
    modifiedBy: r.modified_by,
  };
}

function toRecord(sheetId: number, f: SummaryField): SummaryFieldRecord {
  const { id, index, title, ...def } = f.def;
  return {
    id, sheet_id: sheetId, idx: index, title, def: JSON.stringify(def), cell: JSON.stringify(f.cell),
    created_at: f.createdAt, created_by: f.createdBy, modified_at: f.modifiedAt, modified_by: f.modifiedBy,
  };
}

/** The fields of a model's sheet as of the model's version. */
async function fieldsOf(db: Queryable, m: SheetModel): Promise<SummaryField[]> {
  const hit = cache.get(m);
  if (hit && hit.version === m.version) return hit.fields;
  const fields = (await listSummaryFields(db, m.sheetId)).map(fromRecord);
  cache.set(m, { version: m.version, fields });
  return fields;
}

function byTitle(fields: readonly SummaryField[], title: string): SummaryField | undefined {
  const exact = fields.find((f) => f.def.title === title);
  if (exact) return exact;
  const lower = title.toLowerCase();
  const folded = fields.filter((f) => f.def.title.toLowerCase() === lower);
  return folded.length === 1 ? folded[0] : undefined;
}

function scalarOf(f: SummaryField): Scalar {
  return inputToScalar(storedToRaw(fieldColumn(f.def), f.cell.v), f.def.type);
}

/** What the formula engine reads for `[Title]#` in a cell formula. */
function summaryData(fields: readonly SummaryField[], title: string): CrossSheetData {
  const f = byTitle(fields, title);
  if (!f) return { error: '#INVALID REF' };
  return { cells: [[{ value: storedToRaw(fieldColumn(f.def), f.cell.v), type: f.def.type }]] };
}

function todayDays(): number {
  return Math.floor(clock.now() / 86_400_000);
}

/**
 * Evaluates the formula fields of a sheet over its model: cells are read as the model holds them
 * (computed values included), other fields by title; a field reading itself, directly or through
 * others, is #CIRCULAR REFERENCE. Returns the fields whose value changed.
 */
function computeFields(m: SheetModel, fields: SummaryField[], now: number): SummaryField[] {
  const formulas = fields.filter((f) => f.cell.fx !== undefined);
  if (formulas.length === 0) return [];
  const order = m.tree.displayOrder();
  const schema = sheetSchema(m.columns, order);
  const done = new Map<number, Scalar>();
  const active = new Set<number>();
  const colIndex = new Map(m.columns.map((c, i) => [c.id, i]));
  const valueOf = (f: SummaryField): Scalar => {
    if (f.cell.fx === undefined) return scalarOf(f);
    const known = done.get(f.def.id);
    if (known !== undefined) return known;
    if (active.has(f.def.id)) return err('#CIRCULAR REFERENCE');
    active.add(f.def.id);
    const parsed = parseFormula(fromIdentityForm(f.cell.fx, schema), schema);
    const v = evaluate(parsed, ctx);
    active.delete(f.def.id);
    done.set(f.def.id, v);
    return v;
  };
  const cellValue = (rowId: RowId, colId: ColumnId): Scalar | undefined => {
    const row = m.rows.get(rowId);
    const col = m.columnsById.get(colId);
    if (!row || !col) return undefined;
    return inputToScalar(storedToRaw(col, row.cells[String(colId)]?.v), col.type);
  };
  const ctx: EvalContext = {
    hostRow: null,
    hostCol: null,
    today: todayDays(),
    cell: (r, c) => cellValue(r, c) ?? null,
    cellIfExists: cellValue,
    hasColumn: (c) => m.columnsById.has(c),
    rowIndex: (r) => {
      const n = m.tree.rowNumberOf(r);
      return n === undefined ? undefined : n - 1;
    },
    rowIds: () => order,
    columnsBetween: (a, b) => {
      const i = colIndex.get(a);
      const j = colIndex.get(b);
      if (i === undefined || j === undefined) return undefined;
      return m.columns.slice(Math.min(i, j), Math.max(i, j) + 1).map((c) => c.id);
    },
    children: (r) => m.tree.childrenOf(r),
    parent: (r) => m.tree.parentOf(r),
    crossSheet: (name): RangeValue | ErrorValue => {
      const title = summaryRefTitle(name);
      const f = title === undefined ? undefined : byTitle(fields, title);
      if (!f) return err('#INVALID REF');
      const v = valueOf(f);
      return { kind: 'range', width: 1, height: 1, cells: [v] };
    },
  };
  const changed: SummaryField[] = [];
  for (const f of formulas) {
    const v = valueOf(f);
    const stored = resultToStored(fieldColumn(f.def), toFormulaResult(v));
    if (JSON.stringify(stored) === JSON.stringify(f.cell.v)) continue;
    if (stored === undefined) delete f.cell.v;
    else f.cell.v = stored;
    f.modifiedAt = Math.max(f.modifiedAt, now);
    changed.push(f);
  }
  return changed;
}

/**
 * Lets the model's cell formulas read `[Title]#` (set before its formulas run). Should an engine
 * have computed them before (without the fields), they are computed again: the rows that
 * changed are returned.
 */
function attach(m: SheetModel, fields: readonly SummaryField[]): Set<number> {
  const first = m.summaryFields === undefined;
  m.summaryFields = (title) => summaryData(fields, title);
  const touched = new Set<number>();
  if (!first || !m.formulas) return touched;
  for (const name of m.formulas.crossSheetReferences()) {
    if (summaryRefTitle(name) === undefined) continue;
    for (const id of applyChanges(m, m.formulas.crossSheetChanged(name))) touched.add(id);
  }
  return touched;
}

/**
 * After every write of a sheet: formula fields recomputed from the cells as written, then the
 * cell formulas reading changed fields, and so on while anything changes (a few rounds at most:
 * a loop between cells and fields stops there, as a cycle would).
 */
async function afterSheetWrite(ctx: WriteContext): Promise<void> {
  const m = ctx.model;
  const fields = await fieldsOf(ctx.tx, m);
  for (const id of attach(m, fields)) ctx.changes.updated.add(id);
  // fields this write changed, added, renamed or deleted: the cells reading them follow
  let titles = written.get(ctx) ?? new Set<string>();
  for (let round = 0; round < 4; round++) {
    const changed = computeFields(m, fields, ctx.now);
    for (const f of changed) await updateSummaryField(ctx.tx, toRecord(m.sheetId, f));
    if (changed.length > 0) ctx.changes.meta = true;
    for (const f of changed) titles.add(f.def.title.toLowerCase());
    const engine = m.formulas;
    if (titles.size === 0 || !engine) return;
    let touched = 0;
    for (const name of engine.crossSheetReferences()) {
      const t = summaryRefTitle(name);
      if (t === undefined || !titles.has(t.toLowerCase())) continue;
      for (const id of applyChanges(m, engine.crossSheetChanged(name))) {
        ctx.changes.updated.add(id);
        touched++;
      }
    }
    if (touched === 0) return;
    titles = new Set();
  }
}

/** Titles of the fields a summary write changed (for the cell formulas reading them). */
const written = new WeakMap<WriteContext, Set<string>>();

function markWritten(ctx: WriteContext, ...titles: string[]): void {
  let set = written.get(ctx);
  if (!set) written.set(ctx, (set = new Set()));
  for (const t of titles) set.add(t.toLowerCase());
}

onSheetRead(async (db, m) => keepUnsaved(m, attach(m, await fieldsOf(db, m))));
onSheetWrite({
  opened: async (ctx) => {
    for (const id of attach(ctx.model, await fieldsOf(ctx.tx, ctx.model))) ctx.changes.updated.add(id);
  },
  written: afterSheetWrite,
  committed: async (_store, _actor, sheets) => {
    // this process's write kept the cached fields current: they stay valid for the new version
    for (const s of sheets) {
      const hit = cache.get(s.model);
      if (hit && s.changed && hit.version === s.model.version - 1) hit.version = s.model.version;
    }
  },
});

// ---------------------------------------------------------------------------------------
// Reads

export interface SummaryRead {
  model: SheetModel;
  level: AccessLevel;
  fields: SummaryField[];
  users: (id: number | null) => StoredContact | undefined;
  /** The formula of a field as a client sees it (current column titles and row numbers). */
  formulaText: (f: SummaryField) => string | undefined;
}

async function usersOf(db: Queryable, fields: readonly SummaryField[]): Promise<SummaryRead['users']> {
  const ids = new Set<number>();
  for (const f of fields) {
    if (f.createdBy !== null) ids.add(f.createdBy);
    if (f.modifiedBy !== null) ids.add(f.modifiedBy);
  }
  const users = ids.size === 0 ? [] : await findUsersByIds(db, [...ids]);
  const byId = new Map<number, StoredContact>(users.map((u) => [u.id, { email: u.email, name: nameOrEmail(u) }]));
  return (id) => (id === null ? undefined : byId.get(id));
}

function formulaTextOf(m: SheetModel): (f: SummaryField) => string | undefined {
  let schema: ReturnType<typeof sheetSchema> | undefined;
  return (f) => {
    if (f.cell.fx === undefined) return undefined;
    schema ??= sheetSchema(m.columns, m.tree.displayOrder());
    return fromIdentityForm(f.cell.fx, schema);
  };
}

async function summaryRead(db: Queryable, m: SheetModel, level: AccessLevel, fields: SummaryField[]): Promise<SummaryRead> {
  return { model: m, level, fields, users: await usersOf(db, fields), formulaText: formulaTextOf(m) };
}

/** Get Sheet Summary / Get Summary Fields: any access to the sheet. */
export async function getSummary(db: Queryable, actor: Actor, sheetId: number): Promise<SummaryRead> {
  const { model, level } = await readSheet(db, actor, sheetId);
  return summaryRead(db, model, level, await fieldsOf(db, model));
}

/** The summary of a model a reader already holds (Get Sheet with include=summary). */
export async function summaryOfModel(db: Queryable, model: SheetModel, level: AccessLevel): Promise<SummaryRead> {
  return summaryRead(db, model, level, await fieldsOf(db, model));
}

// ---------------------------------------------------------------------------------------
// Writes

export interface SummaryWriteOptions {
  renameIfConflict: boolean;
  /** Valid fields are written and each refused one is listed in `failures` (spec 3, partial success). */
  allowPartialSuccess?: boolean;
  numericDates: boolean;
  level: number;
}

export interface SummaryWriteResult {
  read: SummaryRead;
  /** The fields the request created or changed, in request order. */
  fields: SummaryField[];
  /** With allowPartialSuccess: the fields refused, by their index in the request. */
  failures: SummaryFailure[];
  version: number;
}

export interface SummaryFailure {
  index: number;
  error: ApiError;
}

/** Runs one item of a bulk write: its refusal is listed when partial success is allowed, thrown otherwise. */
function eachItem(o: SummaryWriteOptions, failures: SummaryFailure[], index: number, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    const refusal = apiErrorOf(e);
    if (!o.allowPartialSuccess || refusal === undefined) throw e;
    failures.push({ index, error: refusal });
  }
}

function fieldList(body: unknown): Obj[] {
  if (!Array.isArray(body)) throw apiError(1008, 'expected an array of SummaryField objects');
  if (body.length === 0) throw apiError(1012, 'summary fields');
  return body.map((x) => {
    if (x === null) throw apiError(1177);
    return asObject(x, 'a SummaryField object');
  });
}

/** Renumbers the fields 0..n-1 in list order and stores positions that moved. */
async function reindex(db: Queryable, list: SummaryField[], fresh: ReadonlySet<number>): Promise<void> {
  for (let i = 0; i < list.length; i++) {
    const f = list[i]!;
    if (f.def.index === i) continue;
    f.def.index = i;
    if (!fresh.has(f.def.id)) await setSummaryFieldIndex(db, f.def.id, i);
  }
}

/** The content of a field after a write of value, objectValue, formula, hyperlink or format. */
function writeContent(ctx: WriteContext, f: SummaryField, b: Obj, o: SummaryWriteOptions, isAdmin: boolean, targets: CellTargets): void {
  const input: Obj = {};
  for (const k of ['value', 'objectValue', 'formula', 'hyperlink', 'strict', 'overrideValidation']) if (b[k] !== undefined) input[k] = b[k];
  if (Object.keys(input).length === 0) return;
  if (isObject(b.hyperlink)) {
    const h = b.hyperlink;
    if (h.url !== undefined && h.url !== null && typeof h.url !== 'string') throw apiError(1202);
    if (h.sheetId !== undefined && h.sheetId === ctx.model.sheetId) throw apiError(1203);
  }
  let parsed: ReturnType<typeof parseCellWrite>;
  try {
    parsed = parseCellWrite(fieldColumn(f.def), input, f.cell, {
      numericDates: o.numericDates,
      level: o.level,
      isSheetAdmin: isAdmin,
      sheetId: ctx.model.sheetId,
      // a sheet hyperlink names a sheet the caller can see; its name is the value
      hyperlinkTarget: targets.context.hyperlinkTarget,
    });
  } catch (e) {
    // a target the caller cannot see: a cell answers 1114, a summary field the catalogue's
    // code of its own family, 404/1204 "invalid sheet, report or dashboard Id"
    if (apiErrorOf(e)?.errorCode === 1114) throw apiError(1204);
    throw e;
  }
  const cell = parsed.cell ?? {};
  if (cell.fx !== undefined && cell.fx !== f.cell.fx) {
    cell.fx = toIdentityForm(cell.fx, sheetSchema(ctx.model.columns, ctx.model.tree.displayOrder()));
  }
  // an image goes when anything else is written (images come through their own endpoint)
  if (cell.img !== undefined && (cell.v !== undefined || cell.fx !== undefined || cell.h !== undefined)) delete cell.img;
  const format = f.cell.f;
  f.cell = cell;
  if (format !== undefined && cell.f === undefined) f.cell.f = format;
}

function writeFormat(f: SummaryField, format: string | null | undefined): void {
  if (format === undefined) return;
  if (format === null) delete f.cell.f;
  else f.cell.f = format;
}

function takenTitles(fields: readonly SummaryField[], except?: number): Set<string> {
  return new Set(fields.filter((f) => f.def.id !== except).map((f) => f.def.title.toLowerCase()));
}

/** Add Summary Fields: sheet admins. Titles unique (1193, 1208; or renamed with renameIfConflict). */
export async function addSummaryFields(store: Store, actor: Actor, sheetId: number, body: unknown, o: SummaryWriteOptions): Promise<SummaryWriteResult> {
  const list = fieldList(body);
  const failures: SummaryFailure[] = [];
  const out = await writeSheet(store, actor, sheetId, 'ADMIN', async (ctx) => {
    const fields = await fieldsOf(ctx.tx, ctx.model);
    if (fields.length + list.length > MAX_SUMMARY_FIELDS) throw apiError(1199);
    const targets = await loadCellTargets(ctx, actor, [{ cells: list }]);
    const seen = new Set<string>();
    const indexes = new Set<number>();
    const added: Array<{ f: SummaryField; at: number | undefined }> = [];
    const taken = takenTitles(fields);
    list.forEach((b, index) => eachItem(o, failures, index, () => {
      if (b.id !== undefined && b.id !== null) throw apiError(1032, 'id');
      const w = readDefinition(b);
      if (w.title === undefined) throw apiError(1012, 'title');
      const key = w.title.toLowerCase();
      if (seen.has(key)) throw apiError(1208);
      if (w.index !== undefined && indexes.has(w.index)) throw apiError(1195);
      let title = w.title;
      if (taken.has(key)) {
        if (!o.renameIfConflict) throw apiError(1193);
        title = uniqueTitle(title, taken);
      }
      const def = applyDefinition({ id: newId(), index: 0, title, type: 'TEXT_NUMBER' }, { ...w, title }, false);
      const f: SummaryField = { def, cell: {}, createdAt: ctx.now, createdBy: actor.user.id, modifiedAt: ctx.now, modifiedBy: actor.user.id };
      writeFormat(f, w.format);
      delete f.def.format;
      writeContent(ctx, f, b, o, true, targets);
      // the item is valid: only now does it hold its title and index
      seen.add(key);
      if (w.index !== undefined) indexes.add(w.index);
      taken.add(title.toLowerCase());
      added.push({ f, at: w.index });
    }));
    if (added.length === 0) return [];
    // each new field goes to its index (or the end), in request order
    const ordered = [...fields];
    for (const { f, at } of added) ordered.splice(at === undefined ? ordered.length : Math.min(at, ordered.length), 0, f);
    const created = added.map((x) => x.f);
    const fresh = new Set(created.map((f) => f.def.id));
    await reindex(ctx.tx, ordered, fresh);
    await insertSummaryFields(ctx.tx, created.map((f) => toRecord(sheetId, f)));
    fields.splice(0, fields.length, ...ordered);
    ctx.changes.meta = true;
    markWritten(ctx, ...created.map((f) => f.def.title));
    for (const f of created) ctx.events.push({ objectType: 'SUMMARY_FIELD', action: 'CREATE', objectId: f.def.id, details: { title: f.def.title } });
    return created;
  });
  return { read: await summaryRead(store.db, out.model, out.level, await fieldsOf(store.db, out.model)), fields: out.result, failures, version: out.version };
}

/**
 * Update Summary Fields: editors change values, formulas, hyperlinks and formats of unlocked
 * fields; the definition (title, type, options, symbol, contact options, validation, locked,
 * index) and anything of a locked field (1192) is for sheet admins. A type change converts the
 * value as a column's type change converts its cells.
 */
export async function updateSummaryFields(store: Store, actor: Actor, sheetId: number, body: unknown, o: SummaryWriteOptions): Promise<SummaryWriteResult> {
  const list = fieldList(body);
  const failures: SummaryFailure[] = [];
  const out = await writeSheet(store, actor, sheetId, 'EDITOR', async (ctx) => {
    const fields = await fieldsOf(ctx.tx, ctx.model);
    const isAdmin = atLeast(ctx.level, 'ADMIN');
    const targets = await loadCellTargets(ctx, actor, [{ cells: list }]);
    const ids = new Set<number>();
    const titles = new Set<string>();
    const indexes = new Set<number>();
    const changed: SummaryField[] = [];
    const moves: Array<[SummaryField, number]> = [];
    const replaced: Array<[number, SummaryField]> = [];
    list.forEach((b, index) => eachItem(o, failures, index, () => {
      if (b.id === undefined || b.id === null) throw apiError(1012, 'id');
      const id = bodyId(b.id, 'id');
      if (ids.has(id)) throw apiError(1200);
      const at = fields.findIndex((x) => x.def.id === id);
      if (at < 0) throw apiError(1006);
      // changed on a copy: readers holding the model see the fields as stored until this commits
      const f = structuredClone(fields[at]!);
      const w = readDefinition(b);
      if (f.def.locked === true && !isAdmin) throw apiError(1192);
      if (!isAdmin && changesDefinition(f.def, w)) throw apiError(1004);
      const titleKey = w.title?.toLowerCase();
      if (w.title !== undefined) {
        if (titles.has(titleKey!)) throw apiError(1208);
        if (takenTitles(fields, id).has(titleKey!)) {
          if (!o.renameIfConflict) throw apiError(1193);
          w.title = uniqueTitle(w.title, takenTitles(fields, id));
        }
      }
      if (w.index !== undefined && indexes.has(w.index)) throw apiError(1195);
      const before = f.def;
      const def = applyDefinition(before, w, true);
      delete def.format;
      if (def.type !== before.type && f.cell.v !== undefined) {
        const converted = convertCell(f.cell, fieldColumn(before), fieldColumn(def), { rowIdOfNumber: () => undefined, rowNumberOf: () => undefined });
        f.cell = converted ?? {};
      }
      f.def = { ...def, index: before.index };
      writeFormat(f, w.format);
      writeContent(ctx, f, b, o, isAdmin, targets);
      f.modifiedAt = ctx.now;
      f.modifiedBy = actor.user.id;
      // the item is valid: only now does it hold its id, title and index
      ids.add(id);
      if (titleKey !== undefined) titles.add(titleKey);
      if (w.index !== undefined) {
        indexes.add(w.index);
        moves.push([f, w.index]);
      }
      replaced.push([at, f]);
      markWritten(ctx, before.title);
      changed.push(f);
    }));
    if (changed.length === 0) return [];
    markWritten(ctx, ...changed.map((f) => f.def.title));
    for (const [at, f] of replaced) fields[at] = f;
    for (const f of changed) await updateSummaryField(ctx.tx, toRecord(sheetId, f));
    if (moves.length > 0) {
      const ordered = fields.filter((f) => !moves.some(([m]) => m === f));
      for (const [f, at] of [...moves].sort((a, b) => a[1] - b[1])) ordered.splice(Math.min(at, ordered.length), 0, f);
      await reindex(ctx.tx, ordered, new Set());
      fields.splice(0, fields.length, ...ordered);
    }
    ctx.changes.meta = true;
    for (const f of changed) ctx.events.push({ objectType: 'SUMMARY_FIELD', action: 'UPDATE', objectId: f.def.id, details: { title: f.def.title } });
    return changed;
  });
  return { read: await summaryRead(store.db, out.model, out.level, await fieldsOf(store.db, out.model)), fields: out.result, failures, version: out.version };
}

/**
 * Delete Summary Fields: sheet admins. An id the sheet does not have is 1006, unless
 * ignoreSummaryFieldsNotFound: then the others go and the result lists those deleted.
 */
export async function deleteSummaryFields(store: Store, actor: Actor, sheetId: number, ids: number[], ignoreNotFound: boolean): Promise<{ deleted: number[]; version: number }> {
  if (ids.length === 0) throw apiError(1009, 'ids');
  const out = await writeSheet(store, actor, sheetId, 'ADMIN', async (ctx) => {
    const fields = await fieldsOf(ctx.tx, ctx.model);
    const want = new Set(ids);
    const gone = fields.filter((f) => want.has(f.def.id));
    if (gone.length < want.size && !ignoreNotFound) throw apiError(1006);
    if (gone.length === 0) return [];
    const goneIds = gone.map((f) => f.def.id);
    const images = gone.map((f) => f.cell.img?.id).filter((x): x is string => x !== undefined);
    if (images.length > 0) await dropImages(ctx, images);
    await deleteRecords(ctx.tx, sheetId, goneIds);
    const left = fields.filter((f) => !want.has(f.def.id));
    await reindex(ctx.tx, left, new Set());
    fields.splice(0, fields.length, ...left);
    ctx.changes.meta = true;
    markWritten(ctx, ...gone.map((f) => f.def.title));
    for (const f of gone) ctx.events.push({ objectType: 'SUMMARY_FIELD', action: 'DELETE', objectId: f.def.id, details: { title: f.def.title } });
    return goneIds;
  });
  return { deleted: out.result, version: out.version };
}

/** Images no field or cell of the sheet shows any more: their rows go, their blobs by a job. */
async function dropImages(ctx: WriteContext, imageIds: string[]): Promise<void> {
  const inCells = new Set<string>();
  for (const r of ctx.model.rows.values()) for (const k in r.cells) { const img = r.cells[k]!.img; if (img) inCells.add(img.id); }
  const unused = imageIds.filter((id) => !inCells.has(id));
  if (unused.length === 0) return;
  await queueBlobDeletion(ctx.tx, await deleteImagesReleasingBlobs(ctx.tx, ctx.model.sheetId, unused));
}

export interface SummaryImageUpload {
  body: Readable;
  maxBytes: number;
  fileName: string | null;
  altText: string | undefined;
}

/**
 * Add Image to Summary Field: the image (streamed onto the blob store, checked like a cell
 * image) becomes the field's content, replacing its value, formula and hyperlink. Editors;
 * a locked field needs a sheet admin (1192); alt text at most 100 characters (1165).
 */
export async function addSummaryFieldImage(store: Store, blobs: BlobStore, actor: Actor, sheetId: number, fieldId: number, u: SummaryImageUpload): Promise<SummaryWriteResult> {
  if (u.altText !== undefined && u.altText.length > 100) throw apiError(1165);
  const stored = await storeImage(blobs, u.body, u.maxBytes);
  try {
    const out = await writeSheet(store, actor, sheetId, 'EDITOR', async (ctx) => {
      const fields = await fieldsOf(ctx.tx, ctx.model);
      const f = fields.find((x) => x.def.id === fieldId);
      if (!f) throw apiError(1006);
      if (f.def.locked === true && !atLeast(ctx.level, 'ADMIN')) throw apiError(1192);
      const id = newImageId();
      const old = f.cell.img?.id;
      f.cell = { img: { id, width: stored.info.width, height: stored.info.height, ...(u.altText ? { altText: u.altText } : {}) }, ...(f.cell.f !== undefined ? { f: f.cell.f } : {}) };
      f.modifiedAt = ctx.now;
      f.modifiedBy = actor.user.id;
      await insertImage(ctx.tx, {
        id, sheet_id: sheetId, blob_key: stored.blobKey, size: stored.size, bytes: null, mime_type: stored.info.mimeType,
        width: stored.info.width, height: stored.info.height, file_name: u.fileName, created_at: ctx.now, created_by: actor.user.id,
      });
      if (old !== undefined) await dropImages(ctx, [old]);
      await updateSummaryField(ctx.tx, toRecord(sheetId, f));
      markWritten(ctx, f.def.title);
      ctx.changes.meta = true;
      ctx.events.push({ objectType: 'SUMMARY_FIELD', action: 'UPDATE', objectId: f.def.id, details: { title: f.def.title, image: true } });
      return [f];
    });
    return { read: await summaryRead(store.db, out.model, out.level, await fieldsOf(store.db, out.model)), fields: out.result, failures: [], version: out.version };
  } catch (e) {
    await blobs.delete(stored.blobKey);
    throw e;
  }
}


// ---------------------------------------------------------------------------------------
// Copies

/** A stored (identity form) formula with its columns and rows mapped to a copy's (#REF where the copy has none). */

/**
 * A sheet copy (Copy Sheet, Create Sheet from a template or sheet) takes the summary along:
 * the fields with new ids, their values, formulas pointing at the copy's columns (and rows,
 * when the rows were copied; #REF otherwise) and images (shared with the source like cell images).
 */
export async function copySummary(db: Queryable, fromSheetId: number, to: SheetRow, colMap: ReadonlyMap<number, number>, rowMap: ReadonlyMap<number, number>, actor: Actor, now: number): Promise<void> {
  const records = await listSummaryFields(db, fromSheetId);
  if (records.length === 0) return;
  const copies = records.map((r) => {
    const f = fromRecord(r);
    f.def.id = newId();
    if (f.cell.fx !== undefined) f.cell.fx = remapIdentityFormula(f.cell.fx, colMap, rowMap);
    if (f.cell.h?.sheetId === fromSheetId) f.cell.h = { ...f.cell.h, sheetId: to.id };
    return { ...f, createdAt: now, createdBy: actor.user.id, modifiedAt: now, modifiedBy: actor.user.id };
  });
  // the formulas read the copy as it is now (its rows, or none)
  if (copies.some((f) => f.cell.fx !== undefined)) computeFields(await loadModel(db, to), copies, now);
  await insertSummaryFields(db, copies.map((f) => toRecord(to.id, f)));
  await copyCellImages(db, fromSheetId, to.id, copies.filter((f) => f.cell.img !== undefined).map((f) => JSON.stringify({ [f.def.id]: f.cell })));
}
