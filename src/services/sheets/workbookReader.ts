import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { apiError } from '../../errors.ts';
import { apiErrorOf } from '../platform/errors.ts';

/**
 * The rows of an XLSX workbook's first sheet, read part by part through the zip's central
 * directory: the workbook and its relationships, the shared strings and the styles first, then
 * the worksheet, whatever order the parts have in the file.
 *
 * exceljs's own streaming reader reads the zip front to back (unzipper's Parse), keeping a
 * worksheet that comes before the shared strings in a temporary file until they are read. But
 * Parse reports its end as soon as its input is used up, which can be before the parts it
 * queued meanwhile are taken; exceljs stops at that end and the parts still queued are never read.
 * A worksheet stored before the shared strings (as spreadsheet programs write it) then read
 * without them, every text cell empty, and more often the busier the server (issue 34). Here the
 * zip is opened by its central directory (unzipper's Open), and exceljs parses each part as it
 * does in its own reader (the cell values, dates by the cell's number format, rich text and
 * formula results stay exceljs's).
 */

/** A part of the zip, as unzipper's Open lists it. */
type ZipPart = import('unzipper').File;

/** What of exceljs's WorkbookReader (4.x) is used: the parsers of its parts. */
interface PartParsers {
  workbookRels?: Array<{ Id: string; Target: string }>;
  model?: { sheets?: Array<{ rId: string }> };
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncGenerator<unknown>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseWorksheet(iterator: Readable, sheetNo: string): Generator<{ eventType: string; value: AsyncIterable<XlsxRow> }>;
}

export interface XlsxRow {
  number: number;
  values: unknown;
}

/** Not a workbook: not a zip, or a zip without a workbook's parts, or parts that do not parse. */
function invalid(why: string) {
  return apiError(1095, why);
}

/** The parts of the zip at `file`; the streams it opens are closed by `close`. */
async function openZip(file: string): Promise<{ parts: Map<string, ZipPart>; close(): void }> {
  const { default: unzipper } = await import('unzipper');
  const opened = new Set<ReadStream>();
  const source = {
    stream(offset: number, length?: number) {
      const s = createReadStream(file, { start: offset, ...(length ? { end: offset + length } : {}) });
      opened.add(s);
      s.once('close', () => opened.delete(s));
      return s;
    },
    size: async () => (await stat(file)).size,
  };
  const close = () => {
    for (const s of opened) s.destroy();
  };
  try {
    const directory = await unzipper.Open.custom(source);
    return { parts: new Map(directory.files.filter((f) => f.type === 'File').map((f) => [f.path, f])), close };
  } catch (e) {
    close();
    throw invalid(`not a zip file (${(e as Error).message})`);
  }
}

/** The worksheet part of the workbook's first sheet, and its number (sheetN.xml). */
function firstSheet(reader: PartParsers, parts: Map<string, ZipPart>): { path: string; sheetNo: string } | undefined {
  const rId = reader.model?.sheets?.[0]?.rId;
  const target = reader.workbookRels?.find((r) => r.Id === rId)?.Target;
  if (target !== undefined) {
    const path = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
    const no = /sheet(\d+)\.xml$/.exec(path)?.[1];
    if (no !== undefined && parts.has(path)) return { path, sheetNo: no };
  }
  // no usable relationship: the lowest-numbered worksheet, as exceljs would name it
  const numbered = [...parts.keys()]
    .map((p) => /^xl\/worksheets\/sheet(\d+)\.xml$/.exec(p))
    .filter((m) => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  return numbered[0] ? { path: numbered[0][0], sheetNo: numbered[0][1]! } : undefined;
}

/** The first sheet's rows as exceljs reads them (row.values is one-based). */
export async function* xlsxSheetRows(file: string): AsyncGenerator<XlsxRow> {
  // loaded on first use: exceljs takes a fifth of a second to load, and most servers never import XLSX
  const { default: ExcelJS } = await import('exceljs');
  const zip = await openZip(file);
  try {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
      worksheets: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', entries: 'ignore',
    }) as unknown as PartParsers;
    if (typeof reader._parseWorksheet !== 'function') throw new Error('this exceljs has no part parsers (WorkbookReader._parseWorksheet)');
    const part = (path: string) => zip.parts.get(path)?.stream();
    let sheet: AsyncIterable<XlsxRow> | undefined;
    try {
      const workbook = part('xl/workbook.xml');
      if (workbook === undefined) throw invalid('the zip holds no workbook (xl/workbook.xml)');
      const rels = part('xl/_rels/workbook.xml.rels');
      if (rels !== undefined) await reader._parseRels(rels);
      await reader._parseWorkbook(workbook);
      const strings = part('xl/sharedStrings.xml');
      if (strings !== undefined) for await (const _ of reader._parseSharedStrings(strings));
      const styles = part('xl/styles.xml');
      if (styles !== undefined) await reader._parseStyles(styles);
      const first = firstSheet(reader, zip.parts);
      if (first === undefined) throw invalid('the workbook has no worksheet');
      for (const { eventType, value } of reader._parseWorksheet(part(first.path)!, first.sheetNo)) {
        if (eventType === 'worksheet') sheet = value;
      }
      if (sheet === undefined) throw invalid('the workbook has no worksheet');
    } catch (e) {
      throw apiErrorOf(e) ?? invalid(`the workbook: ${(e as Error).message}`);
    }
    const rows = sheet[Symbol.asyncIterator]();
    try {
      yield* rowsOf(rows);
    } finally {
      await rows.return?.();
    }
  } finally {
    zip.close();
  }
}

/** The rows, a failure while parsing them 1095. */
async function* rowsOf(rows: AsyncIterator<XlsxRow>): AsyncGenerator<XlsxRow> {
  for (;;) {
    let next: IteratorResult<XlsxRow>;
    try {
      next = await rows.next();
    } catch (e) {
      throw apiErrorOf(e) ?? invalid(`the worksheet: ${(e as Error).message}`);
    }
    if (next.done) return;
    yield next.value;
  }
}
