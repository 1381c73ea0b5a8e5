import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { MAX_COLUMNS_PER_SHEET, MAX_CELLS_PER_SHEET } from '../../engine/limits.ts';
import { CsvRecords } from '../../engine/csvRecords.ts';
import { ColumnGuess, csvValue, importCellJson, importTitles, type ImportValue } from '../../engine/imports.ts';
import { KEY_STEP } from '../../engine/sortKeys.ts';
import { apiError } from '../../errors.ts';
import { apiErrorOf } from '../platform/errors.ts';
import { newIds } from '../../ids.ts';
import { insertBatches, type Store } from '../../store/db.ts';
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

/**
 * Rows per batch: between progress reports while reading the file, and written together (SQLite:
 * multi-row INSERTs of 128 rows in process; PostgreSQL: a piece of the one COPY that takes them all).
 */
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

/** A line of the file as values, with its zero-based line (CSV record, or XLSX row number - 1). */
type Line = [number, ImportValue[]];

/** The file's lines, in batches (those of a chunk of the file). */
async function* csvRows(file: string): AsyncGenerator<Line[]> {
  const records = new CsvRecords();
  const decoder = new StringDecoder('utf8');
  let i = 0;
  const lines = (recs: string[][]): Line[] => recs.map((rec) => [i++, rec.map(csvValue)]);
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
      const batch = lines(records.push(decoder.write(chunk)));
      if (batch.length > 0) yield batch;
    }
    const batch = lines([...records.push(decoder.end()), ...records.end()]);
    if (batch.length > 0) yield batch;
  } catch (e) {
    const refusal = apiErrorOf(e);
    if (refusal !== undefined) throw refusal;
    throw apiError(1008, `the CSV file: ${(e as Error).message}`);
  }
}

function rowsOf(file: string, format: ImportFormat): AsyncGenerator<Line[]> {
  return format === 'csv' ? csvRows(file) : xlsxSheetRows(file);
}

function isBlank(values: readonly ImportValue[]): boolean {
  return values.every((v) => v === null);
}

/**
 * The file read once: the header, how many columns and data rows, what each column holds, and
 * the data rows' values column by column (blank lines left out). Held in memory: the 500,000-cell
 * limit bounds it (an XLSX's XML never is: it is read part by part). Stops as soon as a limit is
 * passed (1061: 400 columns, 500,000 cells).
 */
interface Table {
  header: ImportValue[] | undefined;
  width: number;
  rows: number;
  guesses: ColumnGuess[];
  /** columns[j][i]: the value of data row i in column j (null: blank); a column is as long as the rows seen when it ended. */
  columns: ImportValue[][];
}

async function readTable(file: string, r: ImportRequest): Promise<Table> {
  const s: Table = { header: undefined, width: 0, rows: 0, guesses: [], columns: [] };
  for await (const batch of rowsOf(file, r.format)) for (const [i, values] of batch) {
    if (r.headerRowIndex !== undefined && i < r.headerRowIndex) continue;
    while (values.length > 0 && values[values.length - 1] === null) values.pop();
    if (r.headerRowIndex !== undefined && i === r.headerRowIndex) s.header = values;
    else if (isBlank(values)) continue;
    else {
      const at = s.rows++;
      for (let j = 0; j < values.length; j++) {
        const v = values[j]!;
        (s.guesses[j] ??= new ColumnGuess()).see(v);
        if (v === null) continue;
        const column = (s.columns[j] ??= []);
        while (column.length < at) column.push(null);
        column.push(v);
      }
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
 * created in one transaction with the SHEET CREATE event of Create Sheet (one event: the rows
 * come with the sheet). The upload goes to a temporary file and is read once (readTable); the
 * rows are written batch by batch (store/db.ts insertBatches: multi-row statements on SQLite, one
 * COPY streamed as the batches are made on PostgreSQL), their cells' JSON built as text, their
 * ids in ascending order (inserted so, the index of row ids takes them in order instead of at
 * random pages: a third of the inserts' time on SQLite). The search index takes the new rows
 * after the answer (the job worker's catch-up).
 */
export async function importSheet(store: Store, actor: Actor, where: { type: 'home' | 'folder' | 'workspace'; id: number | null }, r: ImportRequest): Promise<SheetRow> {
  const name = requireName({ sheetName: r.sheetName }, 'sheetName');
  // may the caller create there at all? (before reading a large upload)
  await containerForCreate(store.db, actor, where);
  const dir = await mkdtemp(join(tmpdir(), 'sheetd-import-'));
  let table: Table;
  try {
    const file = join(dir, `upload.${r.format}`);
    await spool(r.body, file);
    table = await readTable(file, r);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  if (r.headerRowIndex !== undefined && table.header === undefined) throw apiError(1018, String(r.headerRowIndex), 'headerRowIndex');
  if (table.width === 0) throw apiError(1008, 'the file holds no data');
  const primary = r.primaryColumnIndex ?? 0;
  if (primary >= table.width) throw apiError(1018, String(primary), 'primaryColumnIndex');
  const titles = importTitles(table.width, table.header);
  const columns = titles.map((title, j) => {
    const type = (table.guesses[j] ?? new ColumnGuess()).type(j === primary);
    return j === primary ? { title, type, primary: true } : { title, type };
  });
  return await store.db.transaction().execute(async (tx) => {
    const container = await containerForCreate(tx, actor, where);
    const now = clock.now();
    const { sheet, columns: created } = await createSheetFromColumnsIn(tx, actor, sheetContainerOf(container), { name, columns }, { level: r.level }, now);
    const total = table.rows;
    const ids = newIds(total).sort((a, b) => a - b);
    // each column's values, its key in the cells' JSON ("id":) and its type
    const parts = created.map((col, j) => ({ values: table.columns[j] ?? [], key: `${JSON.stringify(String(col.id))}:`, type: col.type }));
    function* batches(): Generator<Insertable<RowTable>[]> {
      for (let from = 0; from < total; from += BATCH) {
        const to = Math.min(total, from + BATCH);
        const batch: Insertable<RowTable>[] = [];
        for (let i = from; i < to; i++) {
          let cells = '';
          for (const part of parts) {
            const v = part.values[i];
            const cell = v === undefined ? undefined : importCellJson(part.type, v);
            if (cell !== undefined) cells += (cells === '' ? '{' : ',') + part.key + cell;
          }
          batch.push({
            id: ids[i]!, sheet_id: sheet.id, parent_id: null, sort_key: (i + 1) * KEY_STEP, expanded: 1, locked: 0, format: null,
            cells: cells === '' ? '{}' : cells + '}', cell_meta: '{}', created_at: now, created_by: actor.user.id, modified_at: now, modified_by: actor.user.id,
          });
        }
        // the values written are let go as they go
        for (const part of parts) for (let i = from; i < to; i++) part.values[i] = null;
        yield batch;
        // asked for the next batch: this one is written (SQLite) or on its way (PostgreSQL)
        r.progress?.('writing', to, total);
      }
    }
    await insertBatches(tx, 'rows', batches());
    return sheet;
  });
}
