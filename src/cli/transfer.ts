import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { extname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loadConfig } from '../config.ts';
import { actorFor } from '../services/outbound/automation.ts';
import { apiErrorOf } from '../services/platform/errors.ts';
import { importSheet, type ImportFormat } from '../services/sheets/imports.ts';
import { readModel } from '../services/sheets/sheetCache.ts';
import { findSheet } from '../store/sheets.ts';
import { findUserByEmail } from '../store/users.ts';
import { sheetCsv } from '../render/csv.ts';
import { PAPER_SIZES, sheetPdf } from '../render/pdf.ts';
import { sheetXlsx } from '../render/xlsx.ts';
import { userLookup } from '../services/sheets/sheetReads.ts';
import { fail, parseCommand, withStore } from './common.ts';
import { progressBar } from './progress.ts';

export const IMPORT_USAGE = `Usage: sheetd import FILE --email E [--folder ID | --workspace ID] [--name N] [--header-row I | --no-header] [--primary-column I]

Imports a CSV or XLSX file (by its extension) as a new sheet owned by the user E, in E's home,
a folder or a workspace E may create sheets in, as Import Sheet does (column types inferred;
the file is streamed, never read whole). Prints the new sheet's id on standard output and how
many rows it holds on standard error.
  --email E           the user who owns the new sheet (required)
  --folder ID         import into this folder
  --workspace ID      import into this workspace
  --name N            the sheet's name (default: the file's name without its extension)
  --header-row I      zero-based line holding the column titles (default 0)
  --no-header         no line of titles: columns are Column1, Column2, ...
  --primary-column I  zero-based column that becomes the primary column (default 0)
A progress bar is drawn on standard error when it is a terminal.
`;

export const EXPORT_USAGE = `Usage: sheetd export SHEET_ID --format csv|xlsx|pdf [--out FILE] [--paper-size SIZE]

Writes a sheet as Get Sheet with Accept text/csv, Excel or PDF does (every row, as its owner
sees it) to FILE, or to standard output without --out (xlsx and pdf refuse a terminal).
  --format F          csv, xlsx or pdf (required)
  --out FILE          the file to write
  --paper-size SIZE   pdf only: LETTER (default), LEGAL, A4, ...
A progress bar is drawn on standard error when it is a terminal.
`;

function errorText(e: unknown): string {
  const refusal = apiErrorOf(e);
  return refusal ? `${refusal.message} (error ${refusal.errorCode})` : (e as Error)?.message ?? String(e);
}

function intOption(name: string, v: string | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v) || Number(v) < min) fail(`--${name} must be a whole number of at least ${min}`);
  return Number(v);
}

export async function importCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseCommand('import', IMPORT_USAGE, args, {
    email: { type: 'string' }, folder: { type: 'string' }, workspace: { type: 'string' }, name: { type: 'string' },
    'header-row': { type: 'string' }, 'no-header': { type: 'boolean' }, 'primary-column': { type: 'string' },
  }, true);
  if (positionals.length !== 1) fail('import needs one FILE (see sheetd import --help)');
  const file = positionals[0]!;
  if (!values.email) fail('import needs --email (see sheetd import --help)');
  if (values.folder !== undefined && values.workspace !== undefined) fail('import takes --folder or --workspace, not both');
  const ext = extname(file).toLowerCase();
  const format: ImportFormat | undefined = ext === '.csv' ? 'csv' : ext === '.xlsx' ? 'xlsx' : undefined;
  if (!format) fail(`import reads .csv and .xlsx files, not ${JSON.stringify(ext || file)}`);
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    fail(`cannot read ${file}`);
  }
  if (values['no-header'] && values['header-row'] !== undefined) fail('import takes --header-row or --no-header, not both');
  const header = values['no-header'] ? undefined : intOption('header-row', values['header-row'], 0) ?? 0;
  const primary = intOption('primary-column', values['primary-column'], 0);
  const folder = intOption('folder', values.folder, 1);
  const workspace = intOption('workspace', values.workspace, 1);
  const where = folder !== undefined ? { type: 'folder' as const, id: folder } : workspace !== undefined ? { type: 'workspace' as const, id: workspace } : { type: 'home' as const, id: null };

  await withStore(async (store) => {
    const user = await findUserByEmail(store.db, values.email!);
    const actor = user ? await actorFor(store.db, user) : undefined;
    if (!actor) fail(`no user with email ${values.email}`);
    actor.tokenName = 'cli';
    const bar = progressBar();
    let read = 0;
    let rows = 0;
    const counted = createReadStream(file).pipe(new Transform({
      transform(chunk: Buffer, _enc, done) {
        read += chunk.length;
        bar.update('reading', read, size);
        done(null, chunk);
      },
    }));
    try {
      const sheet = await importSheet(store, actor, where, {
        body: counted, format, sheetName: values.name ?? file.replace(/^.*[\\/]/, '').replace(/\.[^.]+$/, ''),
        headerRowIndex: header, primaryColumnIndex: primary, level: 0,
        progress: (phase, done, total) => {
          if (phase === 'writing') rows = done;
          bar.update(phase === 'checking' ? 'checking rows' : 'writing rows', done, total);
        },
      });
      bar.done();
      process.stdout.write(`${sheet.id}\n`);
      process.stderr.write(`sheetd: imported ${rows} rows into the sheet ${JSON.stringify(sheet.name)}\n`);
    } catch (e) {
      bar.done();
      fail(`import: ${errorText(e)}`);
    }
  });
}

const FORMATS = { csv: 'csv', xlsx: 'xlsx', pdf: 'pdf' } as const;

export async function exportCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseCommand('export', EXPORT_USAGE, args, {
    format: { type: 'string' }, out: { type: 'string' }, 'paper-size': { type: 'string' },
  }, true);
  if (positionals.length !== 1) fail('export needs one SHEET_ID (see sheetd export --help)');
  const sheetId = intOption('sheet id', positionals[0], 1)!;
  const format = values.format === undefined ? undefined : FORMATS[values.format.toLowerCase() as keyof typeof FORMATS];
  if (!format) fail('export needs --format csv, xlsx or pdf');
  if (values.out === undefined && format !== 'csv' && process.stdout.isTTY) fail(`export: ${format} is binary; name a file with --out`);
  const paperSize = values['paper-size']?.toUpperCase();
  if (paperSize !== undefined && (format !== 'pdf' || !PAPER_SIZES.includes(paperSize))) fail(`--paper-size is for pdf: one of ${PAPER_SIZES.join(', ')}`);
  const config = loadConfig();
  await withStore(async (store) => {
    const sheet = await findSheet(store.db, sheetId);
    if (!sheet) fail(`no sheet ${sheetId}`);
    const bar = progressBar();
    bar.update('reading the sheet', 0);
    const model = await readModel(store.db, sheet);
    const rows = model.tree.displayOrder().map((id) => model.rows.get(id)!);
    bar.update('rendering rows', rows.length, rows.length);
    const opts = {
      ro: { include: new Set<string>(), exclude: new Set<string>(), numericDates: false, level: 0, accessApiLevel: 0 },
      level: 'OWNER' as const, users: await userLookup(store.db, rows), permalinkBase: config.publicUrl,
    };
    let bytes: Buffer;
    try {
      bytes = format === 'csv' ? Buffer.from(sheetCsv(model, rows, opts), 'utf8')
        : format === 'xlsx' ? await sheetXlsx(model, sheet.name, rows, opts)
          : await sheetPdf(model, sheet.name, rows, opts, paperSize);
    } catch (e) {
      bar.done();
      fail(`export: ${errorText(e)}`);
    }
    let written = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        written += chunk.length;
        bar.update('writing', written, bytes.length);
        done(null, chunk);
      },
    });
    const source = async function* () {
      for (let i = 0; i < bytes.length; i += 64 * 1024) yield bytes.subarray(i, i + 64 * 1024);
    };
    if (values.out === undefined) {
      // standard output stays open (a pipe is not ended by us)
      for await (const chunk of source()) {
        if (!process.stdout.write(chunk)) await new Promise((r) => process.stdout.once('drain', r));
      }
    } else {
      await pipeline(source(), counter, createWriteStream(values.out));
    }
    bar.done();
    if (values.out !== undefined) process.stderr.write(`sheetd: wrote ${rows.length} rows to ${values.out}\n`);
  });
}
