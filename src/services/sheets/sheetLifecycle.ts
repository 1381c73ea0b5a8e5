import { remapIdentityFormula } from '../../engine/formulaBridge.ts';
import type { Insertable } from 'kysely';
import { chunks, type Queryable, type Store } from '../../store/db.ts';
import type { RowTable } from '../../store/schema.ts';
import {
  deleteSheetsById, findSheet, insertColumns, insertRows, insertSheet, listColumns, listRows, rowIdsOf, updateRowCells, updateSheet, type SheetRow,
} from '../../store/sheets.ts';
import { deleteLinksOfSheets } from '../../store/links.ts';
import { deleteSharesOf, insertShares, listShares } from '../../store/shares.ts';
import { deleteFavoritesOf } from '../../store/favorites.ts';
import { deletePublicationsOf } from '../../store/publications.ts';
import type { StoredCell, StoredRowCells } from '../../engine/cells.ts';
import type { ColumnDef } from '../../engine/columns.ts';
import { apiError } from '../../errors.ts';
import { newId, randomString } from '../../ids.ts';
import { atLeast, type AccessLevel } from '../access/access.ts';
import type { AfterDb } from '../platform/transactions.ts';
import type { Actor, ReadOptions } from '../platform/context.ts';
import { authorOf, recordEvents, type ChangeEvent, type EventAuthor } from '../log/events.ts';
import { sheetFor, sheetAccessLevel } from '../access/permissions.ts';
import { asObject, bodyBool, bodyId } from '../../engine/input.ts';
import { createSheetFromColumnsIn, requireName, type SheetContainer } from './sheetCreation.ts';
import { copyCellImages } from './images.ts';
import { copySummary } from '../computed/summary.ts';
import { queueBlobDeletion } from '../collaboration/attachments.ts';
import { imageBlobKeysOfSheets } from '../../store/images.ts';
import { copyThreads } from '../collaboration/discussions.ts';
import { blobKeysOfSheets } from '../../store/attachments.ts';
import { copyViews, deleteViews } from './filters.ts';
import { createFromPublicTemplateIn, publicTemplate } from '../places/publicTemplates.ts';
import { accessibleSheets, containerForCreate, parseDestination, placement, type ResolvedContainer } from '../access/containers.ts';
import { clock } from '../../clock.ts';
import { projectSettingsOf } from '../../engine/calendar.ts';
import { writeSheet, type SheetStore } from './sheetWrites.ts';

/** What a copy brings along (include=...): everything else is the structure (columns, settings). */
export const COPY_INCLUDES = ['attachments', 'cellLinks', 'data', 'discussions', 'filters', 'forms', 'ruleRecipients', 'rules', 'shares'] as const;

/** Id maps and pending work of one copy operation (one sheet, or a folder or workspace tree). */
export interface CopyContext {
  actor: Actor;
  now: number;
  include: Set<string>;
  skipRemap: Set<string>;
  /** Old sheet id -> new (pre-filled for tree copies, so links between copied sheets follow). */
  sheetMap: Map<number, number>;
  rowMap: Map<number, number>;
  colMap: Map<number, number>;
  /** New rows whose cell links point into the copied set: fixed once every sheet is copied. */
  pendingLinks: Array<{ rowId: number; cells: StoredRowCells }>;
  /** Work that needs every sheet of a tree copied first (dashboards pointing at copied cells). */
  afterCopy: Array<(db: Queryable) => Promise<void>>;
  events: ChangeEvent[];
}

export function copyContext(actor: Actor, include: Iterable<string>, skipRemap: Iterable<string> = [], now = clock.now()): CopyContext {
  const inc = new Set(include);
  if (inc.has('all')) for (const k of COPY_INCLUDES) inc.add(k);
  return { actor, now, include: inc, skipRemap: new Set(skipRemap), sheetMap: new Map(), rowMap: new Map(), colMap: new Map(), pendingLinks: [], afterCopy: [], events: [] };
}

function isPredecessorValue(v: StoredCell['v']): v is { p: Array<{ rowId: number; type: 'FS' | 'FF' | 'SS' | 'SF' }> } {
  return typeof v === 'object' && v !== null && 'p' in v;
}

/** A copied row's cells, keyed by the new column ids, with row and sheet references followed. */
function remapCells(cells: StoredRowCells, ctx: CopyContext): { cells: StoredRowCells; pendingLink: boolean } {
  const out: StoredRowCells = {};
  let pendingLink = false;
  for (const [colId, cell] of Object.entries(cells)) {
    const newCol = ctx.colMap.get(Number(colId));
    if (newCol === undefined) continue;
    const c: StoredCell = { ...cell };
    if (isPredecessorValue(c.v)) c.v = { p: c.v.p.map((p) => ({ ...p, rowId: ctx.rowMap.get(p.rowId) ?? p.rowId })) };
    if (c.fx !== undefined) c.fx = remapIdentityFormula(c.fx, ctx.colMap, ctx.rowMap);
    if (c.li !== undefined) {
      if (!ctx.include.has('cellLinks')) delete c.li;
      else if (ctx.sheetMap.has(c.li.sheetId) && !ctx.skipRemap.has('cellLinks')) pendingLink = true;
    }
    if (c.h?.sheetId !== undefined && ctx.sheetMap.has(c.h.sheetId) && !ctx.skipRemap.has('sheetHyperlinks')) {
      c.h = { ...c.h, sheetId: ctx.sheetMap.get(c.h.sheetId)! };
    }
    out[String(newCol)] = c;
  }
  return { cells: out, pendingLink };
}

function remapKeys(json: string, colMap: Map<number, number>): string {
  const obj = JSON.parse(json) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    // the shared pair of a row's cell meta (store/sheetModels.ts) names no column
    if (k === '*') {
      out[k] = v;
      continue;
    }
    const n = colMap.get(Number(k));
    if (n !== undefined) out[String(n)] = v;
  }
  return JSON.stringify(out);
}

/**
 * Copies one sheet's records into a new sheet: columns always (new ids), rows with
 * include=data (new ids, cells keyed by the new column ids, parents followed), item shares with
 * include=shares. Cell history is never copied. The caller owns the copy.
 */
export async function copySheetRecords(
  db: Queryable,
  ctx: CopyContext,
  src: SheetRow,
  dest: { folderId: number | null; workspaceId: number | null },
  name: string,
  sourceType: 'sheet' | 'template' = 'sheet',
): Promise<SheetRow> {
  const id = ctx.sheetMap.get(src.id) ?? newId();
  ctx.sheetMap.set(src.id, id);
  const sheet: SheetRow = {
    ...src,
    id,
    owner_id: ctx.actor.user.id,
    name,
    folder_id: dest.folderId,
    workspace_id: dest.workspaceId,
    version: 1,
    is_template: 0,
    source: JSON.stringify({ id: src.id, type: sourceType }),
    created_at: ctx.now,
    modified_at: ctx.now,
  };
  await insertSheet(db, sheet);
  const srcColumns = await listColumns(db, src.id);
  for (const c of srcColumns) ctx.colMap.set(c.id, newId());
  const rows = ctx.include.has('data') ? await listRows(db, src.id) : [];
  for (const r of rows) ctx.rowMap.set(r.id, newId());
  // column formulas (identity form) point at the copy's columns, and its rows ($1) with include=data
  const columns: ColumnDef[] = srcColumns.map((c) => {
    const copy: ColumnDef = { ...c, id: ctx.colMap.get(c.id)! };
    if (c.formula !== undefined) copy.formula = remapIdentityFormula(c.formula, ctx.colMap, ctx.include.has('data') ? ctx.rowMap : new Map());
    return copy;
  });
  await insertColumns(db, id, columns);
  await copyViews(db, src.id, id, ctx.colMap, ctx.include.has('filters'), ctx.actor.user.id, ctx.now);
  if (ctx.include.has('data')) {
    const records: Insertable<RowTable>[] = rows.map((r) => {
      const rec: Record<string, unknown> = { ...r };
      const { cells, pendingLink } = remapCells(JSON.parse(r.cells) as StoredRowCells, ctx);
      const newRowId = ctx.rowMap.get(r.id)!;
      if (pendingLink) ctx.pendingLinks.push({ rowId: newRowId, cells });
      rec.id = newRowId;
      rec.sheet_id = id;
      rec.parent_id = r.parent_id === null ? null : (ctx.rowMap.get(r.parent_id) ?? null);
      rec.cells = JSON.stringify(cells);
      // per-cell metadata kept beside the cells is keyed by column id too
      if (typeof rec.cell_meta === 'string') rec.cell_meta = remapKeys(rec.cell_meta, ctx.colMap);
      rec.created_at = ctx.now;
      rec.modified_at = ctx.now;
      rec.created_by = ctx.actor.user.id;
      rec.modified_by = ctx.actor.user.id;
      return rec as Insertable<RowTable>;
    });
    // as other bulk inserts: COPY on PostgreSQL (a copy of 100,000 rows through the query
    // builder's statements of 400 rows took 6.3 to 6.9 s, now 3.8 to 4.2 s), statements
    // compiled once on SQLite (no faster there: SQLite's own work is most of it)
    await insertRows(db, records);
    await copyCellImages(db, src.id, id, rows.map((r) => r.cells));
  }
  await copySummary(db, src.id, sheet, ctx.colMap, ctx.include.has('data') ? ctx.rowMap : new Map(), ctx.actor, ctx.now);
  if (ctx.include.has('attachments') || ctx.include.has('discussions')) {
    const rowMap = new Map<number, number>();
    if (ctx.include.has('data')) for (const id of await rowIdsOf(db, src.id)) rowMap.set(id, ctx.rowMap.get(id)!);
    await copyThreads(db, ctx.actor, src.id, id, rowMap, { attachments: ctx.include.has('attachments'), discussions: ctx.include.has('discussions') }, true);
  }
  if (ctx.include.has('shares')) {
    const shares = (await listShares(db, 'sheet', src.id)).filter((s) => s.user_id !== ctx.actor.user.id);
    await insertShares(db, shares.map((s) => ({ ...s, id: newShareId(), object_id: id, created_by: ctx.actor.user.id, created_at: ctx.now, modified_at: ctx.now })));
  }
  ctx.events.push({ objectType: 'SHEET', action: 'CREATE', objectId: id, sheetId: id, workspaceId: sheet.workspace_id, details: { sheetName: name, sourceObjectId: src.id, sourceType } });
  return sheet;
}

/** Second pass of a tree copy: cell links between copied sheets point at the copies. */
export async function finishCopy(db: Queryable, ctx: CopyContext): Promise<void> {
  for (const f of ctx.afterCopy) await f(db);
  ctx.afterCopy = [];
  for (const p of ctx.pendingLinks) {
    for (const c of Object.values(p.cells)) {
      if (c.li && ctx.sheetMap.has(c.li.sheetId)) {
        c.li = { ...c.li, sheetId: ctx.sheetMap.get(c.li.sheetId)!, rowId: ctx.rowMap.get(c.li.rowId) ?? c.li.rowId, columnId: ctx.colMap.get(c.li.columnId) ?? c.li.columnId };
      }
    }
    await updateRowCells(db, p.rowId, JSON.stringify(p.cells));
  }
  ctx.pendingLinks = [];
  await recordEvents(db, authorOf(ctx.actor), ctx.events, ctx.now);
  ctx.events = [];
}

export function newShareId(): string {
  return 'A' + randomString(15, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
}

/** Deletes sheets with what hangs off them (rows and cell history: store/sheets.ts deleteSheetsById; columns cascade; shares, favorites). */
export async function deleteSheetRecords(db: Queryable, author: EventAuthor, sheets: SheetRow[], now = clock.now()): Promise<number[]> {
  if (sheets.length === 0) return [];
  const ids = sheets.map((s) => s.id);
  await deleteSharesOf(db, 'sheet', ids);
  await deleteFavoritesOf(db, 'sheet', ids);
  await deleteFavoritesOf(db, 'template', ids);
  for (const part of chunks(ids)) {
    // attachments and images cascade with their sheets; their files go by a job after the
    // commit (which keeps a blob another sheet's copy of an image still shows)
    await queueBlobDeletion(db, [...(await blobKeysOfSheets(db, part)), ...(await imageBlobKeysOfSheets(db, part))]);
    await deleteSheetsById(db, part);
    // links into and references of the deleted sheets go with them (links out of them break)
    await deleteLinksOfSheets(db, part);
    await deleteViews(db, part);
    await deletePublicationsOf(db, 'sheet', part);
  }
  await recordEvents(db, author, sheets.map((s) => ({ objectType: 'SHEET', action: 'DELETE', objectId: s.id, sheetId: s.id, workspaceId: s.workspace_id, details: { sheetName: s.name } })), now);
  return ids;
}

function sheetContainerOf(c: ResolvedContainer): SheetContainer {
  if (c.type === 'home') return { type: 'home' };
  if (c.type === 'folder') return { type: 'folder', folderId: c.folder.id, workspaceId: c.folder.workspace_id };
  return { type: 'workspace', workspaceId: c.ws.id };
}

/**
 * Create Sheet in home, a folder or a workspace: from columns, or from a template or sheet the
 * caller can see (fromId, with include options). 1054 when the body has neither.
 */
export function createSheetObject(store: Store, ...a: AfterDb<typeof createSheetIn>) {
  return store.db.transaction().execute((tx) => createSheetIn(tx, ...a));
}

export async function createSheetIn(
  db: Queryable,
  actor: Actor,
  where: { type: 'home' | 'folder' | 'workspace'; id: number | null },
  body: unknown,
  ro: ReadOptions,
): Promise<{ sheet: SheetRow; columns?: ColumnDef[] }> {
  const container = await containerForCreate(db, actor, where);
  const b = asObject(body, 'a Sheet object');
  if (b.fromId === undefined || b.fromId === null) {
    return createSheetFromColumnsIn(db, actor, sheetContainerOf(container), b, { level: ro.level });
  }
  const name = requireName(b);
  const fromId = bodyId(b.fromId, 'fromId');
  const shipped = publicTemplate(fromId);
  if (shipped) return { sheet: await createFromPublicTemplateIn(db, actor, sheetContainerOf(container), name, shipped, ro.include) };
  const src = await findSheet(db, fromId);
  if (!src || (await sheetAccessLevel(db, actor, src)) === null) throw apiError(1033);
  const ctx = copyContext(actor, [...ro.include].filter((k) => k !== 'shares'));
  const sheet = await copySheetRecords(db, ctx, src, placement(container), name, src.is_template ? 'template' : 'sheet');
  await finishCopy(db, ctx);
  return { sheet };
}

/** List Sheets: every sheet the caller can see, optionally modified since a time. */
export async function listVisibleSheets(db: Queryable, actor: Actor, since: number | undefined): Promise<Array<{ sheet: SheetRow; level: AccessLevel }>> {
  const all = [...(await accessibleSheets(db, actor)).values()];
  return since === undefined ? all : all.filter((x) => x.sheet.modified_at >= since);
}

const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

interface SheetSettings {
  /** A project sheet (one made from the Project Plan template). */
  dependenciesEnabled?: boolean;
  projectSettings?: { workingDays?: string[]; nonWorkingDays?: string[]; lengthOfDay?: number };
  /** userSettings are per user: { "<userId>": { criticalPathEnabled, displaySummaryTasks } } */
  userSettingsByUser?: Record<string, { criticalPathEnabled?: boolean; displaySummaryTasks?: boolean }>;
  [k: string]: unknown;
}

export function settingsOf(sheet: SheetRow): SheetSettings {
  return JSON.parse(sheet.settings) as SheetSettings;
}

/** The caller's userSettings on a sheet, with the defaults filled in. */
export function userSettingsFor(sheet: SheetRow, userId: number): { criticalPathEnabled: boolean; displaySummaryTasks: boolean } {
  const mine = settingsOf(sheet).userSettingsByUser?.[String(userId)] ?? {};
  return { criticalPathEnabled: mine.criticalPathEnabled ?? false, displaySummaryTasks: mine.displaySummaryTasks ?? true };
}

function validProjectSettings(v: unknown): NonNullable<SheetSettings['projectSettings']> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw apiError(1031, String(v), 'projectSettings');
  const p = v as Record<string, unknown>;
  const out: NonNullable<SheetSettings['projectSettings']> = {};
  if (p.workingDays !== undefined) {
    if (!Array.isArray(p.workingDays) || p.workingDays.some((d) => typeof d !== 'string' || !WEEKDAYS.includes(d))) throw apiError(1031, JSON.stringify(p.workingDays), 'projectSettings.workingDays');
    out.workingDays = p.workingDays as string[];
  }
  if (p.nonWorkingDays !== undefined) {
    if (!Array.isArray(p.nonWorkingDays) || p.nonWorkingDays.some((d) => typeof d !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(d) || Number.isNaN(Date.parse(d)))) {
      throw apiError(1031, JSON.stringify(p.nonWorkingDays), 'projectSettings.nonWorkingDays');
    }
    out.nonWorkingDays = p.nonWorkingDays as string[];
  }
  if (p.lengthOfDay !== undefined) {
    if (typeof p.lengthOfDay !== 'number' || !(p.lengthOfDay > 0 && p.lengthOfDay <= 24)) throw apiError(1031, String(p.lengthOfDay), 'projectSettings.lengthOfDay');
    out.lengthOfDay = p.lengthOfDay;
  }
  return out;
}

function validUserSettings(v: unknown): { criticalPathEnabled?: boolean; displaySummaryTasks?: boolean } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw apiError(1031, String(v), 'userSettings');
  const u = v as Record<string, unknown>;
  const out: { criticalPathEnabled?: boolean; displaySummaryTasks?: boolean } = {};
  for (const k of ['criticalPathEnabled', 'displaySummaryTasks'] as const) {
    if (u[k] === undefined) continue;
    out[k] = bodyBool(u[k], `userSettings.${k}`);
  }
  return out;
}

/**
 * Update Sheet: name and projectSettings need ADMIN (projectSettings a project sheet: 1143);
 * userSettings (the caller's own view) any access. The sheet's version moves on with a rename or project settings change.
 */
export async function updateSheetObject(store: SheetStore, actor: Actor, sheetId: number, body: unknown): Promise<{ sheet: SheetRow; level: AccessLevel }> {
  const written = typeof body === 'object' && body !== null && (body as { projectSettings?: unknown }).projectSettings !== undefined;
  if (!written) return store.db.transaction().execute((tx) => updateSheetObjectIn(tx, actor, sheetId, body));
  // new project settings move the schedule: a sheet write, whose step computes the dates again
  // in its transaction (services/computed/schedule.ts); the write moves the version on
  const out = await writeSheet(store, actor, sheetId, 'VIEWER', async (ctx) => {
    const { sheet, level } = await updateSheetObjectIn(ctx.tx, actor, sheetId, body, ctx.now, { inWrite: true });
    ctx.sheet = sheet;
    const project = projectSettingsOf(sheet.settings);
    if (project !== undefined) ctx.model.project = project;
    ctx.changes.meta = true;
    return level;
  });
  return { sheet: out.sheet, level: out.result };
}

async function updateSheetObjectIn(db: Queryable, actor: Actor, sheetId: number, body: unknown, now = clock.now(), opts: { inWrite?: boolean } = {}): Promise<{ sheet: SheetRow; level: AccessLevel }> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  const b = asObject(body, 'a Sheet object');
  if (b.id !== undefined && b.id !== sheetId) throw apiError(1029);
  const name = b.name === undefined ? undefined : requireName(b);
  const project = b.projectSettings === undefined ? undefined : validProjectSettings(b.projectSettings);
  const user = b.userSettings === undefined ? undefined : validUserSettings(b.userSettings);
  if ((name !== undefined || project !== undefined) && !atLeast(level, 'ADMIN')) throw apiError(1004);
  const settings = settingsOf(sheet);
  // project settings are the schedule's: only a project sheet (dependencies enabled) has them
  if (project !== undefined && settings.dependenciesEnabled !== true) throw apiError(1143, 'projectSettings');
  if (project !== undefined) settings.projectSettings = { ...(settings.projectSettings ?? {}), ...project };
  if (user !== undefined) settings.userSettingsByUser = { ...(settings.userSettingsByUser ?? {}), [String(actor.user.id)]: { ...(settings.userSettingsByUser?.[String(actor.user.id)] ?? {}), ...user } };
  // a write (project settings) moves the version itself
  const structural = (name !== undefined || project !== undefined) && opts.inWrite !== true;
  const next: SheetRow = {
    ...sheet,
    name: name ?? sheet.name,
    settings: JSON.stringify(settings),
    version: structural ? sheet.version + 1 : sheet.version,
    modified_at: structural ? now : sheet.modified_at,
  };
  await updateSheet(db, sheet.id, { name: next.name, settings: next.settings, version: next.version, modified_at: next.modified_at });
  const events: ChangeEvent[] = [];
  if (name !== undefined && name !== sheet.name) events.push({ objectType: 'SHEET', action: 'RENAME', objectId: sheet.id, sheetId: sheet.id, workspaceId: sheet.workspace_id, details: { oldName: sheet.name, newName: name } });
  if (project !== undefined || user !== undefined) events.push({ objectType: 'SHEET', action: 'UPDATE', objectId: sheet.id, sheetId: sheet.id, workspaceId: sheet.workspace_id, details: {} });
  await recordEvents(db, authorOf(actor), events, now);
  return { sheet: next, level };
}

/** Delete Sheet: the owner only. */
export function deleteSheetObject(store: Store, ...a: AfterDb<typeof deleteSheetObjectIn>) {
  return store.db.transaction().execute((tx) => deleteSheetObjectIn(tx, ...a));
}

async function deleteSheetObjectIn(db: Queryable, actor: Actor, sheetId: number): Promise<void> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'OWNER');
  await deleteSheetRecords(db, authorOf(actor), [sheet]);
}

/** Copy Sheet to a ContainerDestination (any access to the source; create rights at the destination). */
export function copySheetObject(store: Store, ...a: AfterDb<typeof copySheetObjectIn>) {
  return store.db.transaction().execute((tx) => copySheetObjectIn(tx, ...a));
}

async function copySheetObjectIn(db: Queryable, actor: Actor, sheetId: number, body: unknown, include: Iterable<string>): Promise<SheetRow> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'VIEWER');
  const d = parseDestination(body, { copy: true });
  const container = await containerForCreate(db, actor, d);
  const ctx = copyContext(actor, include);
  const copy = await copySheetRecords(db, ctx, sheet, placement(container), d.newName ?? sheet.name, sheet.is_template ? 'template' : 'sheet');
  await finishCopy(db, ctx);
  return copy;
}

/** Move Sheet (ADMIN on the sheet, create rights at the destination); its shares stay. */
export function moveSheetObject(store: Store, ...a: AfterDb<typeof moveSheetObjectIn>) {
  return store.db.transaction().execute((tx) => moveSheetObjectIn(tx, ...a));
}

async function moveSheetObjectIn(db: Queryable, actor: Actor, sheetId: number, body: unknown, now = clock.now()): Promise<{ sheet: SheetRow; level: AccessLevel }> {
  const { sheet } = await sheetFor(db, actor, sheetId, 'ADMIN');
  const d = parseDestination(body, { copy: false });
  const container = await containerForCreate(db, actor, d);
  const p = placement(container);
  await updateSheet(db, sheet.id, { folder_id: p.folderId, workspace_id: p.workspaceId });
  await recordEvents(db, authorOf(actor), [{ objectType: 'SHEET', action: 'MOVE', objectId: sheet.id, sheetId: sheet.id, workspaceId: p.workspaceId, details: { destinationType: d.type, destinationId: d.id } }], now);
  const moved: SheetRow = { ...sheet, folder_id: p.folderId, workspace_id: p.workspaceId };
  return { sheet: moved, level: (await sheetAccessLevel(db, actor, moved)) ?? 'VIEWER' };
}
