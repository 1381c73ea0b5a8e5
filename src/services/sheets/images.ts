import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { BlobNotFound, BlobTooLarge, newBlobKey, type BlobStore } from '../../blobs/index.ts';
import { isObject } from '../../engine/input.ts';
import { apiError, type ApiError } from '../../errors.ts';
import type { Queryable } from '../../store/db.ts';
import type { DB } from '../../store/schema.ts';
import { findSheet } from '../../store/sheets.ts';
import { copyImagesToSheet, imageBytes, imageOfUrlToken, imagesWithBytes, insertImage, insertImageUrls, moveImageBytesToBlob, profileImagesByIds, sheetsOfImages } from '../../store/images.ts';
import { cellKey, type StoredRowCells } from '../../engine/cells.ts';
import { writeRowCells } from '../../engine/model.ts';
import { imageInfo, type ImageInfo } from '../../engine/imageSize.ts';
import { parseRowCells } from '../../engine/values.ts';
import { atLeast } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { afterWrite } from '../computed/formulas.ts';
import { sheetAccessLevel } from '../access/permissions.ts';
import { writeSheet, type SheetStore } from './sheetWrites.ts';
import { hasServerSignature, serverSignature } from '../identity/secrets.ts';
import { clock } from '../../clock.ts';
import { checkProjectCells, projectRowRules } from '../computed/schedule.ts';

/** How long a URL from POST /imageurls serves its image. */
export const IMAGE_URL_TTL_MS = 30 * 60 * 1000;

/** Opaque image ids like the public service's: 22 url-safe characters (128 random bits). */
export function newImageId(): string {
  return randomBytes(16).toString('base64url');
}

/** URL tokens: 192 random bits, url-safe. */
function newUrlToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * How much of an upload is read to recognise the image before it goes to the blob store: a
 * JPEG's size follows its metadata segments (EXIF, ICC profiles), which rarely pass 64 KB.
 */
const IMAGE_HEAD_BYTES = 512 * 1024;

export interface CellImageUpload {
  /** The image, as it arrives (never read whole into memory). */
  body: Readable;
  /** Largest upload accepted, in bytes. */
  maxBytes: number;
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
 *
 * The bytes stream onto the blob store (an empty body is 1024, one over `maxBytes` 1074, one
 * whose head is not an image 1091 and is not stored); the blob is removed again when the
 * sheet write fails.
 */
export async function addImageToCell(store: SheetStore, blobs: BlobStore, actor: Actor, sheetId: number, rowId: number, columnId: number, u: CellImageUpload) {
  const { info, blobKey, size } = await storeImage(blobs, u.body, u.maxBytes);
  try {
    return await storeCellImage(store, actor, sheetId, rowId, columnId, u, { info, blobKey, size });
  } catch (e) {
    await blobs.delete(blobKey);
    throw e;
  }
}

/**
 * Streams an image onto the blob store: an empty body is 1024, one over `maxBytes` 1074, one
 * whose head is not an image 1091 (and is not stored).
 */
export async function storeImage(blobs: BlobStore, upload: Readable, maxBytes: number): Promise<{ info: ImageInfo; blobKey: string; size: number }> {
  const { head, body } = await peek(upload, IMAGE_HEAD_BYTES, (b) => imageInfo(b) !== null);
  if (head.length === 0) throw apiError(1024);
  const info = imageInfo(head);
  if (info === null) {
    upload.destroy();
    throw apiError(1091, 'of the request body: not a PNG, GIF, JPEG, BMP or WebP image');
  }
  const blobKey = newBlobKey();
  try {
    return { info, blobKey, size: (await blobs.put(blobKey, body, { contentType: info.mimeType, maxBytes })).size };
  } catch (e) {
    if (e instanceof BlobTooLarge) throw apiError(1074, `more than ${maxBytes} bytes`, `${maxBytes} bytes`);
    throw e;
  }
}

/**
 * Reads the start of `body`, at least until `enough(head)` or `max` bytes or its end, and
 * gives back that head and a stream of all the bytes (head included). Destroying the stream
 * destroys `body`.
 */
export async function peek(body: Readable, max: number, enough: (head: Buffer) => boolean): Promise<{ head: Buffer; body: Readable }> {
  const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const parts: Buffer[] = [];
  let head = Buffer.alloc(0);
  let ended = false;
  while (head.length < max && !enough(head)) {
    const next = await it.next();
    if (next.done === true) {
      ended = true;
      break;
    }
    parts.push(next.value);
    head = Buffer.concat(parts);
  }
  async function* all() {
    try {
      yield head;
      while (!ended) {
        const next = await it.next();
        if (next.done === true) return;
        yield next.value;
      }
    } finally {
      // when the reader stopped early (a failed write), this stops the source too
      await it.return?.();
    }
  }
  return { head, body: Readable.from(all(), { objectMode: false }) };
}

async function storeCellImage(
  store: SheetStore, actor: Actor, sheetId: number, rowId: number, columnId: number, u: CellImageUpload,
  stored: { info: ImageInfo; blobKey: string; size: number },
) {
  const { info } = stored;
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
    // a project sheet's schedule cells hold dates, durations and predecessors, not images
    const project = projectRowRules(m);
    if (project !== undefined) checkProjectCells(project, [{ columnId, image }], rowId);
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
    const before = row.cells[cellKey(columnId)];
    writeRowCells(ctx.changes, row, cells, [columnId], [ctx.now, actor.user.id]);
    // column formula cells refuse (1302); formulas referring to the cell see it change
    afterWrite(ctx, [{ row, column, before }]);
    await insertImage(ctx.tx, {
      id,
      sheet_id: sheetId,
      blob_key: stored.blobKey,
      size: stored.size,
      bytes: null,
      mime_type: info.mimeType,
      width: info.width,
      height: info.height,
      file_name: u.fileName,
      created_at: ctx.now,
      created_by: actor.user.id,
    });
    row.modifiedAt = ctx.now;
    row.modifiedBy = actor.user.id;
    ctx.events.push({ objectType: 'ROW', action: 'UPDATE', objectId: row.id, details: { columnIds: [columnId] } });
    return row;
  });
}

export type ImageUrlItem =
  | { imageId: string; token: string }
  | { imageId: string; error: ApiError };

/** The image ids asked for (height and width are accepted and ignored: images are served as uploaded). */
function readImageIds(body: unknown): string[] {
  if (!Array.isArray(body)) throw apiError(1008, 'expected an array of ImageUrl objects');
  return body.map((x) => {
    if (x === null) throw apiError(1177);
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
export async function createImageUrls(db: Kysely<DB>, actor: Actor, body: unknown, now = clock.now()): Promise<ImageUrlItem[]> {
  const wanted = readImageIds(body);
  const ids = [...new Set(wanted)];
  const sheetsOf = await sheetsOfImages(db, ids);
  const visible = new Map<number, boolean>();
  for (const sheetId of new Set([...sheetsOf.values()].flat())) {
    const sheet = await findSheet(db, sheetId);
    visible.set(sheetId, sheet !== undefined && (await sheetAccessLevel(db, actor, sheet)) !== null);
  }
  // the others may be profile images (User.profileImage.imageId): anyone of the organization sees them
  const profiles = await profileImagesByIds(db, ids.filter((id) => !sheetsOf.has(id)));
  const tokens: Array<{ token: string; sheet_id: number; image_id: string; expires_at: number }> = [];
  const items: ImageUrlItem[] = [];
  for (const imageId of wanted) {
    const sheetId = (sheetsOf.get(imageId) ?? []).find((s) => visible.get(s) === true);
    if (sheetId !== undefined) {
      const token = newUrlToken();
      tokens.push({ token, sheet_id: sheetId, image_id: imageId, expires_at: now + IMAGE_URL_TTL_MS });
      items.push({ imageId, token });
    } else if (profiles.get(imageId)?.orgId === actor.org.id) {
      items.push({ imageId, token: await profileImageToken(db, imageId, now + IMAGE_URL_TTL_MS) });
    } else {
      items.push({ imageId, error: apiError(1006) });
    }
  }
  // expired URLs are of no use to anyone: forget them as new ones are made
  await db.transaction().execute((tx) => insertImageUrls(tx, tokens, now));
  return items;
}

/**
 * A profile image's URL token: `p.<image id>.<expiry>.<signature>`, signed with the server's key
 * and kept nowhere (the stored URL tokens name a sheet's image).
 */
async function profileImageToken(db: Queryable, imageId: string, expiresAt: number): Promise<string> {
  const payload = `p.${imageId}.${expiresAt}`;
  return `${payload}.${await serverSignature(db, 'profile-image-url', payload)}`;
}

/** The profile image a signed token serves, while it has not expired; 1006 otherwise. */
async function profileImageForToken(db: Queryable, blobs: BlobStore, token: string, now: number): Promise<ServedImage> {
  const m = /^p\.([A-Za-z0-9_-]{1,64})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) throw apiError(1006);
  if (!(await hasServerSignature(db, 'profile-image-url', `p.${m[1]}.${m[2]}`, m[3]!))) throw apiError(1006);
  const expiresAt = Number(m[2]);
  if (expiresAt <= now) throw apiError(1006);
  const image = (await profileImagesByIds(db, [m[1]!])).get(m[1]!);
  if (image === undefined) throw apiError(1006);
  try {
    const blob = await blobs.get(image.blobKey);
    return { stream: blob.stream, size: blob.size, mimeType: image.mimeType, fileName: null, expiresAt };
  } catch (e) {
    if (e instanceof BlobNotFound) throw apiError(1006);
    throw e;
  }
}

export interface ServedImage {
  /** The bytes, streamed from the blob store. */
  stream: Readable;
  size: number;
  mimeType: string;
  fileName: string | null;
  expiresAt: number;
}

/** The image a URL token serves, while it has not expired; 1006 otherwise. */
export async function imageForToken(db: Queryable, blobs: BlobStore, token: string, now = clock.now()): Promise<ServedImage> {
  if (token.startsWith('p.')) return profileImageForToken(db, blobs, token, now);
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) throw apiError(1006);
  const hit = await imageOfUrlToken(db, token, now);
  if (!hit || hit.blob_key === null) throw apiError(1006);
  try {
    const blob = await blobs.get(hit.blob_key);
    return { stream: blob.stream, size: blob.size, mimeType: hit.mime_type, fileName: hit.file_name, expiresAt: hit.expires_at };
  } catch (e) {
    if (e instanceof BlobNotFound) throw apiError(1006);
    throw e;
  }
}

/** Image ids of the cells of stored rows (JSON StoredRowCells). */
function imageIdsOfCells(rowsCells: Iterable<string>): Set<string> {
  const ids = new Set<string>();
  for (const json of rowsCells) {
    if (!json.includes('"img"')) continue;
    for (const c of Object.values(JSON.parse(json) as StoredRowCells)) if (c.img !== undefined) ids.add(c.img.id);
  }
  return ids;
}

/**
 * A sheet copy keeps the image ids of its cells: the images those cells show are copied to
 * the new sheet under the same ids, so they resolve there (and outlive the source sheet). The
 * copies refer to the same blob: a blob is kept while any image row refers to it (see
 * orphanedBlobKeys).
 */
export async function copyCellImages(db: Queryable, fromSheetId: number, toSheetId: number, rowsCells: Iterable<string>): Promise<void> {
  await copyImagesToSheet(db, fromSheetId, toSheetId, [...imageIdsOfCells(rowsCells)]);
}

/**
 * Moves the bytes of images stored in the database (before migration 0010) onto the blob store:
 * run at start, after the migrations, before serving. One image at a time (its bytes are
 * loaded: the database drivers cannot stream a column), each committed on its own, so an
 * interrupted move resumes at the next start. Rows of sheet copies that hold the same bytes
 * under the same id share one blob. Two processes starting at once may both store an image;
 * the one whose update finds the bytes gone removes its blob again.
 */
export async function moveImageBytesToBlobs(db: Kysely<DB>, blobs: BlobStore): Promise<number> {
  const pending = await imagesWithBytes(db);
  let moved = 0;
  for (const p of pending) {
    const row = await imageBytes(db, p.sheet_id, p.id);
    if (row?.bytes == null) continue; // moved along with an earlier row of the same image
    const bytes = Buffer.from(row.bytes);
    const blobKey = newBlobKey();
    await blobs.put(blobKey, Readable.from([bytes]), { contentType: row.mime_type, maxBytes: bytes.length });
    const done = await moveImageBytesToBlob(db, p.id, bytes, blobKey);
    if (done === 0) await blobs.delete(blobKey);
    else moved += done;
  }
  return moved;
}
