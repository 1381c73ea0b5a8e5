import { deleteImagesReleasingBlobs, insertImage } from '../../store/images.ts';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../blobs/index.ts';
import { convertCell } from '../../engine/convert.ts';
import { fromIdentityForm, remapIdentityFormula, sheetSchema, toIdentityForm } from '../../engine/formulaBridge.ts';
import { asObject, bodyId, isObject, type Obj } from '../../engine/input.ts';
import { applyDefinition, changesDefinition, fieldColumn, MAX_SUMMARY_FIELDS, readDefinition, uniqueTitle } from '../../engine/summary.ts';
import { parseCellWrite } from '../../engine/values.ts';
import { apiError, type ApiError } from '../../errors.ts';
import { apiErrorOf } from '../platform/errors.ts';
import { newId } from '../../ids.ts';
import type { Queryable } from '../../store/db.ts';
import { deleteSummaryFields as deleteRecords, insertSummaryFields, listSummaryFields, setSummaryFieldIndex, updateSummaryField } from '../../store/summary.ts';
import { findUsersByIds } from '../../store/users.ts';
import type { StoredContact } from '../../engine/contacts.ts';
import { atLeast, type AccessLevel } from '../access/access.ts';
import { nameOrEmail, type Actor } from '../platform/context.ts';
import { copyCellImages, newImageId, storeImage } from '../sheets/images.ts';
import { loadModel } from '../sheets/sheetCache.ts';
import { writeSheet, type SheetStore, type WriteContext } from '../sheets/sheetWrites.ts';
import type { SheetModel } from '../../engine/model.ts';
import type { SheetRow } from '../../store/sheets.ts';
import { queueBlobDeletion } from '../collaboration/attachments.ts';
import { loadCellTargets, type CellTargets } from '../sheets/cellTargets.ts';
import { readSheet } from './currentValues.ts';
import { computeFields, fieldsOf, fromRecord, markWritten, toRecord, type SummaryField } from './summaryFields.ts';

export type { SummaryField } from './summaryFields.ts';

/**
 * Sheet summary fields, the endpoints. A field is a column-like definition with one cell
 * (engine/summary.ts): values are parsed, converted and shown like cells of a column of that
 * definition. Fields live in `summary_fields`. Every change is a write of the sheet
 * (writeSheet): the sheet is locked, its version goes up and SUMMARY_FIELD events are recorded
 * in that transaction. How the sheet's formulas and the fields' own formulas read each other
 * (`[Title]#`), and the fields kept with a cached model, is summaryFields.ts.
 */
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
export async function addSummaryFields(store: SheetStore, actor: Actor, sheetId: number, body: unknown, o: SummaryWriteOptions): Promise<SummaryWriteResult> {
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
export async function updateSummaryFields(store: SheetStore, actor: Actor, sheetId: number, body: unknown, o: SummaryWriteOptions): Promise<SummaryWriteResult> {
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
export async function deleteSummaryFields(store: SheetStore, actor: Actor, sheetId: number, ids: number[], ignoreNotFound: boolean): Promise<{ deleted: number[]; version: number }> {
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
export async function addSummaryFieldImage(store: SheetStore, blobs: BlobStore, actor: Actor, sheetId: number, fieldId: number, u: SummaryImageUpload): Promise<SummaryWriteResult> {
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
