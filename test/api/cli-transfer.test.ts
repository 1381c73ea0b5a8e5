import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { createPgDatabase, TEST_PG_URL } from '../helpers/server.ts';
import { progressBar } from '../../src/cli/progress.ts';

// `sheetd import` and `sheetd export` as operators run them: a separate process, configured by
// environment, on a data directory of its own.
const BIN = path.resolve(import.meta.dirname, '../../bin/sheetd.js');

interface Env { [k: string]: string }

function run(args: string[], env: Env, node: string[] = []): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...node, BIN, ...args], { env: { ...process.env, ...env }, timeout: 120_000, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr: stderr.toString('utf8') });
    });
  });
}

describe('sheetd import and export', () => {
  let dir: string;
  let env: Env;
  let dropDb: (() => Promise<void>) | null = null;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-transfer-'));
    env = { SHEETD_DATA_DIR: path.join(dir, 'data'), SHEETD_ADMIN_EMAIL: 'boss@example.com', SHEETD_LOG_LEVEL: 'silent' };
    if (TEST_PG_URL) {
      const db = await createPgDatabase(TEST_PG_URL);
      env.DATABASE_URL = db.url;
      dropDb = db.drop;
    }
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (dropDb) await dropDb();
  });

  test('import a CSV as a user (prints the id), export it as CSV (stdout), XLSX and PDF (--out): the same values; no progress drawn off a terminal', async () => {
    const csv = 'Task,Hours,Due,Done\r\nalpha,1.5,2026-01-02,true\r\n"beta, with comma",2,2026-03-04,false\r\n';
    const file = path.join(dir, 'plan.csv');
    fs.writeFileSync(file, csv);
    const imp = await run(['import', file, '--email', 'boss@example.com'], env);
    assert.equal(imp.code, 0, imp.stderr);
    const id = imp.stdout.toString().trim();
    assert.match(id, /^\d+$/);
    assert.ok(!imp.stderr.includes('\r'), 'no progress bar when stderr is not a terminal');
    assert.match(imp.stderr, /imported 2 rows into the sheet "plan"/);

    const out = await run(['export', id, '--format', 'csv'], env);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout.toString('utf8'), csv);

    const xlsx = path.join(dir, 'plan.xlsx');
    const x = await run(['export', id, '--format', 'xlsx', '--out', xlsx], env);
    assert.equal(x.code, 0, x.stderr);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(xlsx);
    const ws = wb.worksheets[0]!;
    assert.equal(ws.name, 'plan');
    assert.deepEqual((ws.getRow(1).values as unknown[]).slice(1), ['Task', 'Hours', 'Due', 'Done']);
    assert.deepEqual((ws.getRow(2).values as unknown[]).slice(1), ['alpha', 1.5, new Date('2026-01-02T00:00:00Z'), true]);

    const pdf = path.join(dir, 'plan.pdf');
    const p = await run(['export', id, '--format', 'pdf', '--out', pdf, '--paper-size', 'a4'], env);
    assert.equal(p.code, 0, p.stderr);
    assert.equal(fs.readFileSync(pdf).subarray(0, 5).toString(), '%PDF-');

  });

  test('refusals: one line on stderr, exit 2, nothing imported', async () => {
    const file = path.join(dir, 'a.csv');
    fs.writeFileSync(file, 'A\r\n1\r\n');
    const txt = path.join(dir, 'a.txt');
    fs.writeFileSync(txt, 'x');
    // (each case is a process start: a few that reach different layers)
    const cases: Array<[string[], RegExp]> = [
      [['import', file], /--email/],
      [['import', txt, '--email', 'boss@example.com'], /\.csv and \.xlsx/],
      [['import', file, '--email', 'nobody@example.com'], /no user/],
      [['import', file, '--email', 'boss@example.com', '--folder', '12345'], /1006/],
      [['export', '12345', '--format', 'csv'], /no sheet/],
    ];
    for (const [args, what] of cases) {
      const r = await run(args, env);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^(sheetd: created[^\n]*\n)?sheetd: [^\n]+\n$/, args.join(' '));
      assert.match(r.stderr, what, args.join(' '));
    }
    const h = await run(['export', '--help'], env);
    assert.equal(h.code, 0);
    assert.ok(h.stdout.toString().includes('sheetd export SHEET_ID'));
  });

  test('the progress bar draws on a terminal only: a bar with its share, redrawn in place, cleared at the end', () => {
    const written: string[] = [];
    let t = 0;
    const bar = progressBar({ isTTY: true, columns: 100, write: (s: string) => written.push(s) }, () => (t += 100));
    bar.update('writing rows', 5, 10);
    bar.update('writing rows', 10, 10);
    bar.done();
    assert.equal(written[0], `\rwriting rows [${'#'.repeat(10)}${'-'.repeat(10)}]  50% 5/10\u001b[K`);
    assert.match(written[1]!, /100% 10\/10/);
    assert.equal(written[2], '\r\x1b[K');
    const none: string[] = [];
    const quiet = progressBar({ isTTY: false, write: (s: string) => none.push(s) });
    quiet.update('x', 1, 2);
    quiet.done();
    assert.deepEqual(none, []);
  });

  test('a 100,000-row XLSX (written by a streaming writer) imports streamed: every row arrives, in a process with a small heap', async () => {
    const file = path.join(dir, 'big.xlsx');
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false });
    const ws = writer.addWorksheet('big');
    ws.addRow(['Name', 'Amount', 'Code']).commit();
    for (let i = 1; i <= 100_000; i++) ws.addRow([`item ${i}`, i * 1.5, `c${i % 97}`]).commit();
    ws.commit();
    await writer.commit();
    // the import streams: it runs in a heap far smaller than the workbook read whole would take
    const imp = await run(['import', file, '--email', 'boss@example.com', '--name', 'Big'], env, ['--max-old-space-size=160']);
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stdout.toString(), /^\d+\n$/);
    assert.match(imp.stderr, /imported 100000 rows into the sheet "Big"/);
  });
});
