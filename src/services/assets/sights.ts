import { randomBytes } from 'node:crypto';
import type { Queryable, Store } from '../../store/db.ts';
import { findSheet, type SheetRow } from '../../store/sheets.ts';
import { findFolder, findWorkspace } from '../../store/containers.ts';
import { findReport } from '../../store/reports.ts';
import {
  copySightImages, deleteSights, findSight, findSightByToken, findSightImage, insertSight, insertSightImage, sightImageIds, updateSight,
  type SightImageRow, type SightRow,
} from '../../store/sights.ts';
import type { Readable } from 'node:stream';
import { BlobNotFound, type BlobStore } from '../../blobs/index.ts';
import { newImageId, storeImage } from '../sheets/images.ts';
import { findOrgById, findUserById } from '../../store/users.ts';
import { apiError } from '../../errors.ts';
import { clock } from '../../clock.ts';
import { newId } from '../../ids.ts';
import { asObject, bodyBool } from '../../engine/input.ts';
import {
  DEFAULT_COLUMN_COUNT, MAX_COLUMN_COUNT, itemOf, parseColor, parseWidgets, retargetWidgets, widgetRefs,
  type CopyMaps, type ItemKey, type StoredWidget,
} from '../../engine/sights.ts';
import { InvalidInput } from '../../engine/errors.ts';
import type { AccessLevel } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { authorOf, recordEvents, type ChangeEvent, type EventAuthor } from '../log/events.ts';
import { containerForCreate, folderAccessLevel, parseDestination, placement, workspaceAccessLevel } from '../access/containers.ts';
import { sheetAccessLevel } from '../access/permissions.ts';
import { requireName } from '../sheets/sheetCreation.ts';
import { modelForRead } from '../computed/currentValues.ts';
import type { SheetModel } from '../../engine/model.ts';
import { summaryOfModel, type SummaryRead } from '../computed/summary.ts';
import { reportAccess, sightAccess } from '../access/assetAccess.ts';
import { readReport, type ReportData } from './reports.ts';
import { apiErrorOf } from '../platform/errors.ts';


/** A dashboard as stored, with the caller's level and its widgets parsed. */
export interface SightView {
  sight: SightRow;
  level: AccessLevel;
  widgets: StoredWidget[];
}

export function widgetsOf(s: SightRow): StoredWidget[] {
  return JSON.parse(s.widgets) as StoredWidget[];
}

function sightEvent(s: Pick<SightRow, 'id' | 'name' | 'workspace_id'>, action: string, details: Record<string, unknown> = {}): ChangeEvent {
  return { objectType: 'DASHBOARD', action, objectId: s.id, workspaceId: s.workspace_id, details: { sightName: s.name, ...details } };
}

/** Whether the caller can see an object a widget names. */
async function canSee(db: Queryable, actor: Actor, kind: ItemKey, id: number): Promise<string | null> {
  if (kind === 'sheetId') {
    const s = await findSheet(db, id);
    return s && (await sheetAccessLevel(db, actor, s)) !== null ? s.name : null;
  }
  if (kind === 'reportId') {
    const r = await findReport(db, id);
    return r && (await reportAccess.levelOf(db, actor, r)) !== null ? r.name : null;
  }
  if (kind === 'sightId') {
    const s = await findSight(db, id);
    return s && (await sightAccess.levelOf(db, actor, s)) !== null ? s.name : null;
  }
  if (kind === 'folderId') {
    const f = await findFolder(db, id);
    return f && (await folderAccessLevel(db, actor, f)) !== null ? f.name : null;
  }
  const w = await findWorkspace(db, id);
  return w && (await workspaceAccessLevel(db, actor, w)) !== null ? w.name : null;
}

/**
 * The writer must see everything its widgets name (1006 otherwise), but for what a widget that
 * keeps its id named already (`previous`: an ADMIN saves a dashboard with widgets on sheets not
 * shared to it without changing them); a METRIC widget's cells must be cells of its sheet, and
 * an IMAGE widget's privateId an image uploaded to the dashboard (1031).
 */
async function checkWidgets(db: Queryable, actor: Actor, widgets: StoredWidget[], sightId: number | null, previous: readonly StoredWidget[] = []): Promise<void> {
  const images = sightId === null ? new Set<string>() : await sightImageIds(db, sightId);
  for (const [i, w] of widgets.entries()) {
    if (w.contents.type === 'IMAGE' && w.contents.privateId !== undefined && !images.has(w.contents.privateId)) {
      throw new InvalidInput(1031, w.contents.privateId, `widgets[${i}].contents.privateId`);
    }
  }
  const before = new Map(previous.map((w) => [w.id, widgetRefs([w])]));
  const seen = new Map<string, boolean>();
  for (const w of widgets) {
    const had = before.get(w.id);
    for (const [kind, ids] of Object.entries(widgetRefs([w])) as Array<[ItemKey, Set<number>]>) {
      for (const id of ids) {
        if (had?.[kind].has(id)) continue;
        const key = refKey(kind, id);
        if (!seen.has(key)) seen.set(key, (await canSee(db, actor, kind, id)) !== null);
        if (!seen.get(key)) throw apiError(1006);
      }
    }
  }
  for (const [i, w] of widgets.entries()) {
    const c = w.contents;
    if (c.type !== 'METRIC') continue;
    const sheet = (await findSheet(db, c.sheetId))!;
    const model = await modelForRead(db, sheet);
    // the sheet's fields whoever reads them (a kept widget may be on a sheet the writer cannot see)
    const fields = c.cellData.some((d) => d.dataSource === 'SUMMARY_FIELD') ? new Set((await summaryOfModel(db, model, 'OWNER')).fields.map((f) => f.def.id)) : new Set<number>();
    for (const [k, d] of c.cellData.entries()) {
      const at = `widgets[${i}].contents.cellData[${k}]`;
      if (d.dataSource === 'SUMMARY_FIELD') {
        if (!fields.has(d.profileFieldId!)) throw new InvalidInput(1031, String(d.profileFieldId), `${at}.profileField.id`);
        continue;
      }
      if (!model.rows.has(d.rowId!)) throw new InvalidInput(1031, String(d.rowId), `${at}.rowId`);
      if (!model.columnsById.has(d.columnId!)) throw new InvalidInput(1031, String(d.columnId), `${at}.columnId`);
    }
  }
}

function columnCountOf(v: unknown, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_COLUMN_COUNT) throw new InvalidInput(1031, String(v), 'columnCount');
  return v;
}

/** The names of the items `widgets` name that the caller can see, by `kind:id`. */
async function visibleNames(db: Queryable, actor: Actor, widgets: readonly StoredWidget[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [kind, ids] of Object.entries(widgetRefs(widgets)) as Array<[ItemKey, Set<number>]>) {
    for (const id of ids) {
      const name = await canSee(db, actor, kind, id);
      if (name !== null) out.set(refKey(kind, id), name);
    }
  }
  return out;
}

/**
 * Labels Get Dashboard fills in are not written back as labels: a METRIC item without a label
 * shows its column's title (or its summary field's), a shortcut without one its item's name.
 * An item of a kept widget that had no label and comes back labelled with what was shown stays
 * without one, so that it goes on following the column's or the item's name.
 */
async function dropShownLabels(db: Queryable, widgets: StoredWidget[], previous: readonly StoredWidget[], names: ReadonlyMap<string, string>): Promise<void> {
  const before = new Map(previous.map((w) => [w.id, w]));
  for (const w of widgets) {
    const b = before.get(w.id)?.contents;
    const c = w.contents;
    if (b === undefined) continue;
    if (c.type === 'METRIC' && b.type === 'METRIC' && b.sheetId === c.sheetId) {
      const unlabelled = b.cellData.filter((d) => d.label === undefined);
      if (unlabelled.length === 0) continue;
      const sheet = await findSheet(db, c.sheetId);
      if (!sheet) continue;
      const model = await modelForRead(db, sheet);
      const fieldTitles = new Map(unlabelled.some((d) => d.dataSource === 'SUMMARY_FIELD') ? (await summaryOfModel(db, model, 'OWNER')).fields.map((f) => [f.def.id, f.def.title]) : []);
      for (const d of c.cellData) {
        if (d.label === undefined) continue;
        const same = unlabelled.find((x) => x.dataSource === d.dataSource && x.rowId === d.rowId && x.columnId === d.columnId && x.profileFieldId === d.profileFieldId);
        if (same === undefined) continue;
        const shown = d.dataSource === 'SUMMARY_FIELD' ? fieldTitles.get(d.profileFieldId!) : model.columnsById.get(d.columnId!)?.title;
        if (d.label === shown) delete d.label;
      }
    }
    if ('shortcutData' in c && 'shortcutData' in b) {
      for (const item of c.shortcutData) {
        if (item.label === undefined) continue;
        const target = itemOf(item.hyperlink);
        if (target === undefined) continue;
        const key = refKey(...target);
        const had = b.shortcutData.some((x) => {
          const was = itemOf(x.hyperlink);
          return x.label === undefined && was !== undefined && refKey(...was) === key;
        });
        if (had && item.label === names.get(key)) delete item.label;
      }
    }
  }
}

/**
 * Create a dashboard (POST /2.0/sheetd/sights): name, where it goes (destinationType home,
 * folder or workspace with destinationId; home when absent), columnCount, backgroundColor,
 * defaultWidgetBackgroundColor and widgets.
 */
export async function createSight(store: Store, actor: Actor, body: unknown): Promise<SightView> {
  const b = asObject(body, 'a Sight object');
  const name = requireName(b);
  const where = b.destinationType === undefined ? { type: 'home' as const, id: null } : parseDestination({ destinationType: b.destinationType, destinationId: b.destinationId }, { copy: false });
  const columnCount = columnCountOf(b.columnCount, DEFAULT_COLUMN_COUNT);
  const widgets = parseWidgets(b.widgets, [], columnCount, newId);
  const backgroundColor = parseColor(b.backgroundColor, 'backgroundColor') ?? null;
  const defaultWidgetBackgroundColor = parseColor(b.defaultWidgetBackgroundColor, 'defaultWidgetBackgroundColor') ?? null;
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const container = await containerForCreate(tx, actor, where);
    await checkWidgets(tx, actor, widgets, null);
    const p = placement(container);
    const sight: SightRow = {
      id: newId(), org_id: actor.org.id, owner_id: container.type === 'folder' && container.folder.workspace_id === null ? container.folder.owner_id : actor.user.id,
      name, folder_id: p.folderId, workspace_id: p.workspaceId, widgets: JSON.stringify(widgets), background_color: backgroundColor,
      default_widget_background_color: defaultWidgetBackgroundColor, column_count: columnCount, source_id: null, publish_token: null, publish_accessible_by: null,
      created_at: now, modified_at: now,
    };
    await insertSight(tx, sight);
    await recordEvents(tx, authorOf(actor), [sightEvent(sight, 'CREATE')], now);
    return { sight, level: 'OWNER' as AccessLevel, widgets };
  });
}

/**
 * Update a dashboard's definition (PUT /2.0/sheetd/sights/{id}, ADMIN): any of name, widgets
 * (the whole list: widgets that name an id of the dashboard keep it), columnCount,
 * backgroundColor and defaultWidgetBackgroundColor (null removes a colour).
 */
export async function updateSightDefinition(store: Store, actor: Actor, id: number, body: unknown): Promise<SightView> {
  const b = asObject(body, 'a Sight object');
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const { asset: sight, level } = await sightAccess.require(tx, actor, id, 'ADMIN');
    const changed: string[] = [];
    const next: SightRow = { ...sight, modified_at: now };
    if (b.name !== undefined) {
      next.name = requireName(b);
      changed.push('name');
    }
    if (b.columnCount !== undefined) {
      next.column_count = columnCountOf(b.columnCount, sight.column_count);
      changed.push('columnCount');
    }
    for (const [attr, col] of [['backgroundColor', 'background_color'], ['defaultWidgetBackgroundColor', 'default_widget_background_color']] as const) {
      if (b[attr] === undefined) continue;
      next[col] = parseColor(b[attr], attr) ?? null;
      changed.push(attr);
    }
    let widgets = widgetsOf(sight);
    if (b.widgets !== undefined) {
      const previous = widgets;
      const names = await visibleNames(tx, actor, previous);
      widgets = parseWidgets(b.widgets, previous, next.column_count, newId, { hidden: (kind, itemId) => !names.has(refKey(kind, itemId)) });
      await checkWidgets(tx, actor, widgets, id, previous);
      await dropShownLabels(tx, widgets, previous, names);
      changed.push('widgets');
    } else if (next.column_count < sight.column_count && widgets.some((w) => w.xPosition + w.width > next.column_count)) {
      throw new InvalidInput(1031, String(next.column_count), 'columnCount');
    }
    next.widgets = JSON.stringify(widgets);
    const { id: _id, ...set } = next;
    await updateSight(tx, id, set);
    const renamed = next.name !== sight.name;
    await recordEvents(tx, authorOf(actor), [sightEvent(next, renamed && changed.length === 1 ? 'RENAME' : 'UPDATE', { changed, ...(renamed ? { oldName: sight.name } : {}) })], now);
    return { sight: next, level, widgets };
  });
}

/** Update Dashboard (PUT /sights/{id}): renames it (ADMIN). */
export async function renameSight(store: Store, actor: Actor, id: number, body: unknown): Promise<SightView> {
  const b = asObject(body, 'a Sight object');
  const name = requireName(b);
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const { asset: sight, level } = await sightAccess.require(tx, actor, id, 'ADMIN');
    const next: SightRow = { ...sight, name, modified_at: now };
    await updateSight(tx, id, { name, modified_at: now });
    await recordEvents(tx, authorOf(actor), [sightEvent(next, 'RENAME', { oldName: sight.name })], now);
    return { sight: next, level, widgets: widgetsOf(next) };
  });
}

/** Delete Dashboard: its owner only, with its shares and favorites. */
export async function deleteSight(store: Store, actor: Actor, id: number): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const { asset: sight } = await sightAccess.require(tx, actor, id, 'OWNER');
    await deleteSights(tx, [sight.id]);
    await recordEvents(tx, authorOf(actor), [sightEvent(sight, 'DELETE')], clock.now());
  });
}

/** Removes dashboards (in a container being deleted) with their events. */
export async function deleteSightRecords(db: Queryable, author: EventAuthor, sights: SightRow[], now = clock.now()): Promise<void> {
  if (sights.length === 0) return;
  await deleteSights(db, sights.map((s) => s.id));
  await recordEvents(db, author, sights.map((s) => sightEvent(s, 'DELETE')), now);
}

/** A copy of a dashboard in a place: not published, no shares; `source_id` names the original. */
async function insertCopy(db: Queryable, src: SightRow, dest: { folderId: number | null; workspaceId: number | null; ownerId: number }, name: string, widgets: StoredWidget[], now: number): Promise<SightRow> {
  const copy: SightRow = {
    ...src, id: newId(), name, owner_id: dest.ownerId, folder_id: dest.folderId, workspace_id: dest.workspaceId, widgets: JSON.stringify(widgets),
    source_id: src.id, publish_token: null, publish_accessible_by: null, created_at: now, modified_at: now,
  };
  await insertSight(db, copy);
  await copySightImages(db, src.id, copy.id);
  return copy;
}

/**
 * Copies a dashboard into a place (a folder or workspace copy). Once every sheet of the copy
 * exists, widgets pointing at copied sheets (their rows and columns) point at the copies.
 */
export async function copySightRecord(
  db: Queryable, src: SightRow, dest: { folderId: number | null; workspaceId: number | null; ownerId: number }, maps: CopyMaps & { afterCopy: Array<(db: Queryable) => Promise<void>> }, now: number,
): Promise<ChangeEvent> {
  const copy = await insertCopy(db, src, dest, src.name, widgetsOf(src), now);
  maps.afterCopy.push(async (tx) => {
    await updateSight(tx, copy.id, { widgets: JSON.stringify(retargetWidgets(widgetsOf(src), maps)) });
  });
  return sightEvent(copy, 'CREATE', { sourceObjectId: src.id });
}

/** Copy Dashboard to a ContainerDestination (any access to it; create rights at the destination). */
export async function copySight(store: Store, actor: Actor, id: number, body: unknown): Promise<SightView> {
  const d = parseDestination(body, { copy: true });
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const { asset: sight } = await sightAccess.require(tx, actor, id, 'VIEWER');
    const container = await containerForCreate(tx, actor, d);
    const p = placement(container);
    const ownerId = container.type === 'folder' && container.folder.workspace_id === null ? container.folder.owner_id : actor.user.id;
    const widgets = widgetsOf(sight);
    const copy = await insertCopy(tx, sight, { ...p, ownerId }, d.newName ?? sight.name, widgets, now);
    await recordEvents(tx, authorOf(actor), [sightEvent(copy, 'CREATE', { sourceObjectId: sight.id })], now);
    return { sight: copy, level: (await sightAccess.levelOf(tx, actor, copy)) ?? 'OWNER', widgets };
  });
}

/** Move Dashboard (ADMIN on it, create rights at the destination); its shares stay. */
export async function moveSight(store: Store, actor: Actor, id: number, body: unknown): Promise<SightView> {
  const d = parseDestination(body, { copy: false });
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const { asset: sight } = await sightAccess.require(tx, actor, id, 'ADMIN');
    const container = await containerForCreate(tx, actor, d);
    const p = placement(container);
    await updateSight(tx, sight.id, { folder_id: p.folderId, workspace_id: p.workspaceId, modified_at: now });
    const moved: SightRow = { ...sight, folder_id: p.folderId, workspace_id: p.workspaceId, modified_at: now };
    await recordEvents(tx, authorOf(actor), [sightEvent(moved, 'MOVE', { destinationType: d.type, destinationId: d.id })], now);
    return { sight: moved, level: (await sightAccess.levelOf(tx, actor, moved)) ?? 'VIEWER', widgets: widgetsOf(moved) };
  });
}

/** List Dashboards: every dashboard the caller can see (modified at or after `since`, when given). */
export async function listSights(db: Queryable, actor: Actor, since?: number): Promise<Array<{ sight: SightRow; level: AccessLevel }>> {
  const all = (await sightAccess.accessible(db, actor)).map(({ asset, level }) => ({ sight: asset, level }));
  return since === undefined ? all : all.filter((x) => x.sight.modified_at >= since);
}

// ---- Get Dashboard: what the widgets show, read live

/** A sheet a widget reads, as the caller sees it. */
export interface SightSheet {
  sheet: SheetRow;
  level: AccessLevel;
  model: SheetModel;
  /** Its sheet summary, when a widget shows summary fields. */
  summary?: SummaryRead;
}

export interface SightData extends SightView {
  /** Sheets of METRIC widgets the caller can see (the others are left out); on the published page, of CHART widgets too. */
  sheets: Map<number, SightSheet>;
  /** Reports of GRIDGANTT widgets (on the published page, of CHART widgets too) the caller can see, read as it sees them. */
  reports: Map<number, ReportData>;
  /** Names of the objects widgets link to that the caller can see, by kind and id. */
  visible: Map<string, string>;
  /** The original of a copy (include=source), when the caller can see it. */
  source?: SightRow;
  /** The workspace holding the dashboard. */
  workspace?: { id: number; name: string };
}

export function refKey(kind: ItemKey, id: number): string {
  return `${kind}:${id}`;
}

/** What the widgets of a dashboard show to `actor`: cells, report rows and link targets it can see. */
async function liveData(db: Queryable, actor: Actor, view: SightView, opts: { charts?: boolean } = {}): Promise<SightData> {
  const sheets = new Map<number, SightSheet>();
  const reports = new Map<number, ReportData>();
  const visible = new Map<string, string>();
  const refs = widgetRefs(view.widgets);
  for (const [kind, ids] of Object.entries(refs) as Array<[ItemKey, Set<number>]>) {
    for (const id of ids) {
      const name = await canSee(db, actor, kind, id);
      if (name !== null) visible.set(refKey(kind, id), name);
    }
  }
  for (const w of view.widgets) {
    const c = w.contents;
    // the sheet a METRIC reads (and, for the published page, the sheet a CHART draws)
    const sheetId = c.type === 'METRIC' ? c.sheetId : c.type === 'CHART' && opts.charts ? c.sheetId : undefined;
    if (sheetId !== undefined && !sheets.has(sheetId) && visible.has(refKey('sheetId', sheetId))) {
      const sheet = (await findSheet(db, sheetId))!;
      const level = (await sheetAccessLevel(db, actor, sheet))!;
      const model = await modelForRead(db, sheet);
      sheets.set(sheetId, { sheet, level, model });
    }
    const src = c.type === 'METRIC' ? sheets.get(c.sheetId) : undefined;
    if (c.type === 'METRIC' && src && !src.summary && c.cellData.some((d) => d.dataSource === 'SUMMARY_FIELD')) src.summary = await summaryOfModel(db, src.model, src.level);
    const reportId = c.type === 'GRIDGANTT' ? c.reportId : c.type === 'CHART' && opts.charts ? c.reportId : undefined;
    if (reportId !== undefined && !reports.has(reportId) && visible.has(refKey('reportId', reportId))) {
      try {
        reports.set(reportId, await readReport(db, actor, reportId));
      } catch (e) {
        if (apiErrorOf(e) === undefined) throw e;
      }
    }
  }
  const out: SightData = { ...view, sheets, reports, visible };
  if (view.sight.workspace_id !== null) {
    const ws = await findWorkspace(db, view.sight.workspace_id);
    if (ws) out.workspace = { id: ws.id, name: ws.name };
  }
  if (view.sight.source_id !== null) {
    const src = await findSight(db, view.sight.source_id);
    if (src && (await sightAccess.levelOf(db, actor, src)) !== null) out.source = src;
  }
  return out;
}

/** Get Dashboard (VIEWER): the dashboard with what its widgets show, read now. */
export async function readSight(db: Queryable, actor: Actor, id: number): Promise<SightData> {
  const { asset: sight, level } = await sightAccess.require(db, actor, id, 'VIEWER');
  return liveData(db, actor, { sight, level, widgets: widgetsOf(sight) });
}

// ---- images of IMAGE widgets

export interface SightImageUpload {
  /** The image, as it arrives (never read whole into memory). */
  body: Readable;
  maxBytes: number;
  fileName: string | null;
}

/**
 * Upload an image for the dashboard's IMAGE widgets (ADMIN): the bytes stream onto the blob
 * store (empty 1024, too large 1074, not an image 1091); the answer's `privateId` is what an
 * IMAGE widget names. The blob is removed again when the dashboard cannot take it.
 */
export async function addSightImage(store: Store, blobs: BlobStore, actor: Actor, id: number, u: SightImageUpload): Promise<SightImageRow> {
  await sightAccess.require(store.db, actor, id, 'ADMIN');
  const { info, blobKey, size } = await storeImage(blobs, u.body, u.maxBytes);
  try {
    return await store.db.transaction().execute(async (tx) => {
      const now = clock.now();
      const { asset: sight } = await sightAccess.require(tx, actor, id, 'ADMIN');
      const row: SightImageRow = { sight_id: sight.id, id: newImageId(), blob_key: blobKey, size, mime_type: info.mimeType, width: info.width, height: info.height, file_name: u.fileName, created_at: now, created_by: actor.user.id };
      await insertSightImage(tx, row);
      await updateSight(tx, sight.id, { modified_at: now });
      await recordEvents(tx, authorOf(actor), [sightEvent(sight, 'UPDATE', { changed: ['images'], imageId: row.id })], now);
      return row;
    });
  } catch (e) {
    await blobs.delete(blobKey);
    throw e;
  }
}

export interface ServedSightImage {
  stream: Readable;
  size: number;
  mimeType: string;
  fileName: string | null;
}

async function serve(db: Queryable, blobs: BlobStore, sightId: number, imageId: string): Promise<ServedSightImage> {
  const img = /^[A-Za-z0-9_-]{1,64}$/.test(imageId) ? await findSightImage(db, sightId, imageId) : undefined;
  if (!img) throw apiError(1006);
  try {
    const blob = await blobs.get(img.blob_key);
    return { stream: blob.stream, size: blob.size, mimeType: img.mime_type, fileName: img.file_name };
  } catch (e) {
    if (e instanceof BlobNotFound) throw apiError(1006);
    throw e;
  }
}

/** An image of a dashboard the caller can see (VIEWER); 1006 for an id it does not have. */
export async function readSightImage(db: Queryable, blobs: BlobStore, actor: Actor, id: number, imageId: string): Promise<ServedSightImage> {
  const { asset: sight } = await sightAccess.require(db, actor, id, 'VIEWER');
  return serve(db, blobs, sight.id, imageId);
}

/** An image of a published dashboard, by its token (as the published page shows it). */
export async function readPublishedSightImage(db: Queryable, blobs: BlobStore, token: string, imageId: string, viewer: { orgId: number } | null): Promise<ServedSightImage | undefined> {
  if (!/^[A-Za-z0-9_-]{10,64}$/.test(token)) return undefined;
  const sight = await findSightByToken(db, token);
  if (!sight || (sight.publish_accessible_by === 'ORG' && viewer?.orgId !== sight.org_id)) return undefined;
  try {
    return await serve(db, blobs, sight.id, imageId);
  } catch (e) {
    if (apiErrorOf(e) !== undefined) return undefined;
    throw e;
  }
}

// ---- publishing

export interface SightPublishView {
  enabled: boolean;
  accessibleBy: 'ALL' | 'ORG' | null;
  token: string | null;
}

function publishOf(s: SightRow): SightPublishView {
  return { enabled: s.publish_token !== null, accessibleBy: s.publish_token === null ? null : s.publish_accessible_by === 'ORG' ? 'ORG' : 'ALL', token: s.publish_token };
}

/** Get Dashboard Publish Status (VIEWER). */
export async function readSightPublish(db: Queryable, actor: Actor, id: number): Promise<SightPublishView> {
  const { asset: sight } = await sightAccess.require(db, actor, id, 'VIEWER');
  return publishOf(sight);
}

/**
 * Set Dashboard Publish Status (ADMIN): readOnlyFullEnabled (required) turns the published
 * page on (a new random token) or off (the old URL stops working); readOnlyFullAccessibleBy ALL
 * (anyone with the link, the default) or ORG (signed-in members of the dashboard's organization).
 */
export async function setSightPublish(store: Store, actor: Actor, id: number, body: unknown): Promise<SightPublishView> {
  const b = asObject(body, 'a SightPublish object');
  if (b.readOnlyFullEnabled === undefined || b.readOnlyFullEnabled === null) throw apiError(1012, 'readOnlyFullEnabled');
  const enabled = bodyBool(b.readOnlyFullEnabled, 'readOnlyFullEnabled');
  const by = b.readOnlyFullAccessibleBy;
  if (by !== undefined && by !== null && by !== 'ALL' && by !== 'ORG') throw apiError(1031, String(by), 'readOnlyFullAccessibleBy');
  return store.db.transaction().execute(async (tx) => {
    const now = clock.now();
    const { asset: sight } = await sightAccess.require(tx, actor, id, 'ADMIN');
    const was = publishOf(sight);
    const token = enabled ? (was.token ?? randomBytes(18).toString('base64url')) : null;
    const accessibleBy = enabled ? ((by as 'ALL' | 'ORG' | undefined | null) ?? was.accessibleBy ?? 'ALL') : null;
    await updateSight(tx, sight.id, { publish_token: token, publish_accessible_by: accessibleBy, modified_at: now });
    if (was.enabled !== enabled || was.accessibleBy !== accessibleBy) {
      const action = !enabled ? 'REMOVE_PUBLISH' : was.enabled ? 'UPDATE_PUBLISH' : 'ADD_PUBLISH';
      await recordEvents(tx, authorOf(actor), [sightEvent(sight, action, { readOnlyFullEnabled: enabled, ...(accessibleBy ? { readOnlyFullAccessibleBy: accessibleBy } : {}) })], now);
    }
    return { enabled, accessibleBy, token };
  });
}

/**
 * A published dashboard by its token, as its owner sees it (the published page shows what the
 * owner's dashboard shows). Undefined when no dashboard is published under the token, or when it
 * is published to its organization only and `viewer` is not a member of it; 'SIGN_IN' when it
 * is published to its organization and nobody is signed in.
 */
export async function readPublishedSight(db: Queryable, token: string, viewer: { orgId: number } | null): Promise<SightData | 'SIGN_IN' | undefined> {
  if (!/^[A-Za-z0-9_-]{10,64}$/.test(token)) return undefined;
  const sight = await findSightByToken(db, token);
  if (!sight) return undefined;
  if (sight.publish_accessible_by === 'ORG' && viewer === null) return 'SIGN_IN';
  if (sight.publish_accessible_by === 'ORG' && viewer?.orgId !== sight.org_id) return undefined;
  const user = await findUserById(db, sight.owner_id);
  const org = await findOrgById(db, sight.org_id);
  if (!user || !org) return undefined;
  const owner: Actor = { user, requestUser: user, org, tokenId: 0, tokenName: 'published', scopes: 'ALL', apiClientId: null };
  return liveData(db, owner, { sight, level: 'VIEWER', widgets: widgetsOf(sight) }, { charts: true });
}
