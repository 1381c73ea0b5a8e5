import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import type { StoredRowCells } from '../../engine/cells.ts';
import { MAX_COLUMNS_PER_SHEET, MAX_CELLS_PER_SHEET } from '../../engine/limits.ts';
import { ColumnGuess, csvValue, importCell, importTitles, xlsxValue, type ImportValue } from '../../engine/imports.ts';
import { KEY_STEP } from '../../engine/sortKeys.ts';
import { apiError } from '../../errors.ts';
import { apiErrorOf } from '../platform/errors.ts';
import { newIds } from '../../ids.ts';
import { insertMany, type Store } from '../../store/db.ts';
import type { RowTable } from '../../store/schema.ts';
import type { SheetRow } from '../../store/sheets.ts';
import type { Insertable } from 'kysely';
import type { Actor } from '../platform/context.ts';
import { containerForCreate, type ResolvedContainer } from '../access/containers.ts';
import { createSheetFromColumnsIn, requireName, type SheetContainer } from './sheetCreation.ts';
import { clock } from '../../clock.ts';
import { xlsxSheetRows } from './workbookReader.ts';

/** Largest file imported (spec 8: upload file size). */
export const IMPORT_MAX_BYTES = 30 * 1024 * 1024;

export const IMPORT_TYPES = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

export type ImportFormat = keyof typeof IMPORT_TYPES;

export interface ImportRequest {
  /** The file, as it arrives (spooled to a temporary file, never held whole in memory). */
  body: Readable;
  format: ImportFormat;
  sheetName: string | undefined;
  /** Zero-based row of the column titles (rows before it are left out); none: Column1, Column2, ... */
  headerRowIndex: number | undefined;
  /** Zero-based column that becomes the primary column (default 0). */
  primaryColumnIndex: number | undefined;
  level: number;
  /** Told how far the import is: rows looked at (first pass, no total) and rows written (of all). */
  progress?: ImportProgress;
}

export type ImportProgress = (phase: 'checking' | 'writing', done: number, total: number | undefined) => void;

/** Rows written per statement batch in the second pass. */
const BATCH = 512;

/** Copies the upload into `file`: an empty one is 1024, one over the limit 1074. */
async function spool(body: Readable, file: string): Promise<number> {
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > IMPORT_MAX_BYTES) done(apiError(1074, `more than ${IMPORT_MAX_BYTES} bytes`, `${IMPORT_MAX_BYTES} bytes`));
      else done(null, chunk);
    },
  });
  await pipeline(body, count, createWriteStream(file));
  if (size === 0) throw apiError(1024);
  return size;
}

/** The file's lines as values, with their zero-based line (CSV record, or XLSX row number - 1). */
async function* csvRows(file: string): AsyncGenerator<[number, ImportValue[]]> {
  const parser = createReadStream(file).pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: false }));
  let i = 0;
  try {
    for await (const rec of parser as AsyncIterable<string[]>) yield [i++, rec.map(csvValue)];
  } catch (e) {
    const refusal = apiErrorOf(e);
    if (refusal !== undefined) throw refusal;
    throw apiError(1008, `the CSV file: ${(e as Error).message}`);
  }
}

/** The first sheet's rows as values (a file that is no workbook: 1095, see workbookReader.ts). */
async function* xlsxRows(file: string): AsyncGenerator<[number, ImportValue[]]> {
  for await (const row of xlsxSheetRows(file)) {
    const values = row.values as unknown[];
    const out: ImportValue[] = [];
    for (let j = 1; j < values.length; j++) out.push(xlsxValue(values[j]));
    yield [row.number - 1, out];
  }
}

function rowsOf(file: string, format: ImportFormat): AsyncGenerator<[number, ImportValue[]]> {
  return format === 'csv' ? csvRows(file) : xlsxRows(file);
}

function isBlank(values: readonly ImportValue[]): boolean {
  return values.every((v) => v === null);
}

interface Shape {
  header: ImportValue[] | undefined;
  width: number;
  rows: number;
  guesses: ColumnGuess[];
}

/**
 * First pass: the header, how many columns and data rows, what each column holds. Blank lines
 * are left out. Stops as soon as a limit is passed (1061: 400 columns, 500,000 cells).
 */
async function measure(file: string, r: ImportRequest): Promise<Shape> {
  const s: Shape = { header: undefined, width: 0, rows: 0, guesses: [] };
  for await (const [i, values] of rowsOf(file, r.format)) {
    if (r.headerRowIndex !== undefined && i < r.headerRowIndex) continue;
    while (values.length > 0 && values[values.length - 1] === null) values.pop();
    if (r.headerRowIndex !== undefined && i === r.headerRowIndex) s.header = values;
    else if (isBlank(values)) continue;
    else {
      s.rows++;
      values.forEach((v, j) => (s.guesses[j] ??= new ColumnGuess()).see(v));
    }
    s.width = Math.max(s.width, values.length);
    if (s.width > MAX_COLUMNS_PER_SHEET) throw apiError(1061, 'columns');
    if (s.rows * s.width > MAX_CELLS_PER_SHEET) throw apiError(1061, 'cells');
    if (r.progress && s.rows % BATCH === 0) r.progress('checking', s.rows, undefined);
  }
  r.progress?.('checking', s.rows, s.rows);
  return s;
}

function sheetContainerOf(c: ResolvedContainer): SheetContainer {
  if (c.type === 'home') return { type: 'home' };
  if (c.type === 'folder') return { type: 'folder', folderId: c.folder.id, workspaceId: c.folder.workspace_id };
  return { type: 'workspace', workspaceId: c.ws.id };
}

/**
 * Import Sheet from CSV / XLSX into home, a folder or a workspace: a new sheet with a column per
 * column of the file (types as engine/imports.ts infers them) and a row per non-blank line,
 * created in one transaction with the SHEET CREATE event of Create Sheet. The upload goes to a
 * temporary file and is read twice as a stream (once to size and type the columns, once to
 * write the rows in batches), so no more than a batch of rows is in memory.
 */
export async function importSheet(store: Store, actor: Actor, where: { type: 'home' | 'folder' | 'workspace'; id: number | null }, r: ImportRequest): Promise<SheetRow> {
  const name = requireName({ sheetName: r.sheetName }, 'sheetName');
  // may the caller create there at all? (before reading a large upload)
  await containerForCreate(store.db, actor, where);
  const dir = await mkdtemp(join(tmpdir(), 'sheetd-import-'));
  try {
    const file = join(dir, `upload.${r.format}`);
    await spool(r.body, file);
    const shape = await measure(file, r);
    if (r.headerRowIndex !== undefined && shape.header === undefined) throw apiError(1018, String(r.headerRowIndex), 'headerRowIndex');
    if (shape.width === 0) throw apiError(1008, 'the file holds no data');
    const primary = r.primaryColumnIndex ?? 0;
    if (primary >= shape.width) throw apiError(1018, String(primary), 'primaryColumnIndex');
    const titles = importTitles(shape.width, shape.header);
    const columns = titles.map((title, j) => {
      const type = (shape.guesses[j] ?? new ColumnGuess()).type(j === primary);
      return j === primary ? { title, type, primary: true } : { title, type };
    });
    return await store.db.transaction().execute(async (tx) => {
      const container = await containerForCreate(tx, actor, where);
      const now = clock.now();
      const { sheet, columns: created } = await createSheetFromColumnsIn(tx, actor, sheetContainerOf(container), { name, columns }, { level: r.level }, now);
      let batch: Insertable<RowTable>[] = [];
      let n = 0;
      const flush = async () => {
        const ids = newIds(batch.length);
        batch.forEach((rec, k) => (rec.id = ids[k]!));
        await insertMany(tx, 'rows', batch);
        batch = [];
        r.progress?.('writing', n, shape.rows);
      };
      for await (const [i, values] of rowsOf(file, r.format)) {
        if (r.headerRowIndex !== undefined && i <= r.headerRowIndex) continue;
        if (isBlank(values)) continue;
        const cells: StoredRowCells = {};
        values.forEach((v, j) => {
          const col = created[j];
          const cell = col === undefined ? undefined : importCell(col.type, v);
          if (cell !== undefined) cells[String(col!.id)] = cell;
        });
        n++;
        batch.push({
          id: 0, sheet_id: sheet.id, parent_id: null, sort_key: n * KEY_STEP, expanded: 1, locked: 0, format: null,
          cells: JSON.stringify(cells), cell_meta: '{}', created_at: now, created_by: actor.user.id, modified_at: now, modified_by: actor.user.id,
        });
        if (batch.length >= BATCH) await flush();
      }
      if (batch.length > 0) await flush();
      return sheet;
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
