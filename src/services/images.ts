import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { apiError, type ApiError } from '../errors.ts';
import type { Queryable, Store } from '../store/db.ts';
import type { DB } from '../store/schema.ts';
import { findSheet } from '../store/sheets.ts';
import type { StoredRowCells } from '../engine/cells.ts';
import { imageInfo } from '../engine/imageSize.ts';
import { parseRowCells } from '../engine/values.ts';
import { atLeast } from './access.ts';
import type { Actor } from './context.ts';
import { afterWrite } from './formulas.ts';
import { sheetAccessLevel } from './permissions.ts';
import { writeSheet } from './sheetModel.ts';

/** How long a URL from POST /imageurls serves its image. */
export const IMAGE_URL_TTL_MS = 30 * 60 * 1000;

/** Opaque image ids like the public service's: 22 url-safe characters (128 random bits). */
function newImageId(): string {
  return randomBytes(16).toString('base64url');
}

/** URL tokens: 192 random bits, url-safe. */
function newUrlToken(): string {
  return randomBytes(24).toString('base64url');
}

export interface CellImageUpload {
  bytes: Buffer;
  /** Content-Disposition filename, when given. */
  fileName: string | null;
  altText: string | undefined;
  overrideValidation: boolean;
  numericDates: boolean;
  level: number;
}

/**
 * Add Image to Cell: stores the uploaded image and makes it the cell's content, in one sheet
 * write (EDITOR). The cell goes through the same parsing as an Update Rows write of
 * `{columnId, image: {...}}`, so locked columns (1039), system columns (1046), column formula
 * columns (1302), alt text (1165) and overrideValidation (1212) follow the same rules; a locked
 * row needs a sheet admin (1050). Any value, formula, hyperlink or cell link is replaced; the
 * previous cell goes to cell history; the row gets a ROW UPDATE event.
 */
export async function addImageToCell(store: Store, actor: Actor, sheetId: number, rowId: number, columnId: number, u: CellImageUpload) {
  const info = imageInfo(u.bytes);
  if (info === null) throw apiError(1091, 'of the request body: not a PNG, GIF, JPEG, BMP or WebP image');
  const id = newImageId();
  return writeSheet(store, actor, sheetId, 'EDITOR', async (ctx) => {
    const m = ctx.model;
    const row = m.rows.get(rowId);
    const column = m.columnsById.get(columnId);
    if (!row || !column) throw apiError(1006);
    const isAdmin = atLeast(ctx.level, 'ADMIN');
    if (row.locked && !isAdmin) throw apiError(1050);
    const image: Record<string, unknown> = { id, width: info.width, height: info.height };
    if (u.altText !== undefined && u.altText !== '') image.altText = u.altText;
    const { cells } = parseRowCells(m.columnsById, [{ columnId, image }], row.cells, {
      numericDates: u.numericDates,
      level: u.level,
      isSheetAdmin: isAdmin,
      overrideValidation: u.overrideValidation,
      isNewRow: false,
      sheetId,
      rowId,
      rowFormat: row.format,
    });
    const key = String(columnId);
    const before = row.cells[key];
    if (before !== undefined || row.meta[key] !== undefined) ctx.history.push([row.id, columnId, before, row.meta[key]]);
    row.meta[key] = [ctx.now, actor.user.id];
    row.cells = cells;
    // column formula cells refuse (1302); formulas referring to the cell see it change
    afterWrite(ctx, [{ row, column, before }]);
    await ctx.tx.insertInto('images').values({
      id,
      sheet_id: sheetId,
      bytes: u.bytes,
      mime_type: info.mimeType,
      width: info.width,
      height: info.height,
      file_name: u.fileName,
      created_at: ctx.now,
      created_by: actor.user.id,
    }).execute();
    row.modifiedAt = ctx.now;
    row.modifiedBy = actor.user.id;
    ctx.dirtyRows.add(row.id);
    ctx.events.push({ objectType: 'ROW', action: 'UPDATE', objectId: row.id, details: { columnIds: [columnId] } });
    return row;
  });
}

export type ImageUrlItem =
  | { imageId: string; token: string }
  | { imageId: string; error: ApiError };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The image ids asked for (height and width are accepted and ignored: images are served as uploaded). */
function readImageIds(body: unknown): string[] {
  if (!Array.isArray(body)) throw apiError(1008, 'expected an array of ImageUrl objects');
  return body.map((x) => {
    if (!isObject(x)) throw apiError(1008, 'each ImageUrl must be an object');
    if (x.imageId === undefined || x.imageId === null || x.imageId === '') throw apiError(1012, 'imageId');
    if (typeof x.imageId !== 'string') throw apiError(1031, String(x.imageId), 'imageId');
    return x.imageId;
  });
}

/**
 * List Image URLs: a temporary URL token for each image the caller can see (the image is in
 * a sheet the caller has any access to); an item with a 1006 error for any other image id.
 * Tokens live in the database (so every sheetd process serves them) for IMAGE_URL_TTL_MS.
 */
export async function createImageUrls(db: Kysely<DB>, actor: Actor, body: unknown, now = Date.now()): Promise<ImageUrlItem[]> {
  const wanted = readImageIds(body);
  const ids = [...new Set(wanted)];
  const sheetsOf = new Map<string, number[]>();
  for (let i = 0; i < ids.length; i += 500) {
    const found = await db.selectFrom('images').select(['id', 'sheet_id']).where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const f of found) sheetsOf.set(f.id, [...(sheetsOf.get(f.id) ?? []), f.sheet_id]);
  }
  const visible = new Map<number, boolean>();
  for (const sheetId of new Set([...sheetsOf.values()].flat())) {
    const sheet = await findSheet(db, sheetId);
    visible.set(sheetId, sheet !== undefined && (await sheetAccessLevel(db, actor, sheet)) !== null);
  }
  const tokens: Array<{ token: string; sheet_id: number; image_id: string; expires_at: number }> = [];
  const items: ImageUrlItem[] = wanted.map((imageId) => {
    const sheetId = (sheetsOf.get(imageId) ?? []).find((s) => visible.get(s) === true);
    if (sheetId === undefined) return { imageId, error: apiError(1006) };
    const token = newUrlToken();
    tokens.push({ token, sheet_id: sheetId, image_id: imageId, expires_at: now + IMAGE_URL_TTL_MS });
    return { imageId, token };
  });
  await db.transaction().execute(async (tx) => {
    // expired URLs are of no use to anyone: forget them as new ones are made
    await tx.deleteFrom('image_urls').where('expires_at', '<=', now).execute();
    for (let i = 0; i < tokens.length; i += 500) await tx.insertInto('image_urls').values(tokens.slice(i, i + 500)).execute();
  });
  return items;
}

/** The image a URL token serves, while it has not expired; 1006 otherwise. */
export async function imageForToken(db: Queryable, token: string, now = Date.now()): Promise<{ bytes: Buffer; mimeType: string; fileName: string | null; expiresAt: number }> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) throw apiError(1006);
  const hit = await db
    .selectFrom('image_urls as u')
    .innerJoin('images as i', (j) => j.onRef('i.id', '=', 'u.image_id').onRef('i.sheet_id', '=', 'u.sheet_id'))
    .select(['i.bytes', 'i.mime_type', 'i.file_name', 'u.expires_at'])
    .where('u.token', '=', token)
    .where('u.expires_at', '>', now)
    .executeTakeFirst();
  if (!hit) throw apiError(1006);
  return { bytes: Buffer.from(hit.bytes), mimeType: hit.mime_type, fileName: hit.file_name, expiresAt: hit.expires_at };
}

/** Image ids of the cells of stored rows (JSON StoredRowCells). */
function imageIdsIn(rowsCells: Iterable<string>): Set<string> {
  const ids = new Set<string>();
  for (const json of rowsCells) {
    if (!json.includes('"img"')) continue;
    for (const c of Object.values(JSON.parse(json) as StoredRowCells)) if (c.img !== undefined) ids.add(c.img.id);
  }
  return ids;
}

/**
 * A sheet copy keeps the image ids of its cells: the images those cells show are copied to
 * the new sheet under the same ids, so they resolve there (and outlive the source sheet).
 */
export async function copyCellImages(db: Queryable, fromSheetId: number, toSheetId: number, rowsCells: Iterable<string>): Promise<void> {
  const ids = [...imageIdsIn(rowsCells)];
  if (!Number.isSafeInteger(toSheetId)) throw new Error('sheet ids are safe integers');
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .insertInto('images')
      .columns(['id', 'sheet_id', 'bytes', 'mime_type', 'width', 'height', 'file_name', 'created_at', 'created_by'])
      .expression(
        db.selectFrom('images')
          .select(['id', sql<number>`${sql.lit(toSheetId)}`.as('sheet_id'), 'bytes', 'mime_type', 'width', 'height', 'file_name', 'created_at', 'created_by'])
          .where('sheet_id', '=', fromSheetId)
          .where('id', 'in', ids.slice(i, i + 500)),
      )
      .onConflict((oc) => oc.columns(['sheet_id', 'id']).doNothing())
      .execute();
  }
}
