import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { strToU8, unzipSync, zipSync } from 'fflate';
import smartsheet from 'smartsheet';
import { serverForFile } from '../helpers/setup.ts';
import { notInCluster } from '../helpers/server.ts';
import { client, allEvents } from '../helpers/http.ts';
import { assertError, makeUser } from '../helpers/sheets.ts';

const s0 = serverForFile();
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

type Sheet = { id: number; name: string; columns: Array<{ id: number; title: string; type: string; primary?: boolean }>; rows: Array<{ cells: Array<{ columnId: number; value?: unknown }> }> };

function post(path: string, body: string | Buffer, type: string, token?: string) {
  return s0.api.call('POST', path, { raw: body, headers: { 'content-type': type, 'content-disposition': 'attachment' }, ...(token ? { token } : {}) });
}

async function sheetOf(id: number): Promise<Sheet> {
  const res = await s0.api.get(`/sheets/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Sheet;
}

function table(s: Sheet): unknown[][] {
  return s.rows.map((r) => s.columns.map((c) => r.cells.find((x) => x.columnId === c.id)?.value ?? null));
}

async function sheetCount(): Promise<number> {
  return (await s0.api.get('/sheets?includeAll=true')).body.totalCount as number;
}

async function xlsxOf(rows: unknown[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Data');
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}


const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/**
 * A workbook written part by part, as spreadsheet programs write it: the shared strings part
 * after the worksheet in the zip (exceljs writes it before). Text cells refer to shared strings;
 * numbers are inline.
 */
function workbookStringsLast(rows: Array<Array<string | number>>): Buffer {
  const strings: string[] = [];
  const ref = (s: string) => (strings.includes(s) ? strings.indexOf(s) : strings.push(s) - 1);
  const col = (j: number) => String.fromCharCode(65 + j);
  const sheetData = rows.map((r, i) => `<row r="${i + 1}">${r.map((v, j) => typeof v === 'number'
    ? `<c r="${col(j)}${i + 1}"><v>${v}</v></c>`
    : `<c r="${col(j)}${i + 1}" t="s"><v>${ref(v)}</v></c>`).join('')}</row>`).join('');
  const parts: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8(`${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`),
    '_rels/.rels': strToU8(`${XML}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`),
    'xl/workbook.xml': strToU8(`${XML}<workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    'xl/_rels/workbook.xml.rels': strToU8(`${XML}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${DOC_RELS}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`),
    'xl/worksheets/sheet1.xml': strToU8(`${XML}<worksheet xmlns="${MAIN}"><sheetData>${sheetData}</sheetData></worksheet>`),
  };
  // after the worksheet: fflate writes the parts in the order of the object's keys
  parts['xl/sharedStrings.xml'] = strToU8(`${XML}<sst xmlns="${MAIN}" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((t) => `<si><t>${t}</t></si>`).join('')}</sst>`);
  return Buffer.from(zipSync(parts));
}

/**
 * A workbook of one worksheet written part by part: `sheetData` is the worksheet's <sheetData>
 * content, `strings` the shared strings' <si> contents. Styles: 1 a custom date format, 2 the
 * built-in date format 14, 3 the number format 0.00.
 */
function workbookOf(sheetData: string, strings: string[], opts: { date1904?: boolean } = {}): Buffer {
  const styles = `${XML}<styleSheet xmlns="${MAIN}"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd"/></numFmts>`
    + '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders>'
    + '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    + '<cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>';
  return Buffer.from(zipSync({
    '[Content_Types].xml': strToU8(`${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`),
    '_rels/.rels': strToU8(`${XML}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`),
    'xl/workbook.xml': strToU8(`${XML}<workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}">${opts.date1904 ? '<workbookPr date1904="1"/>' : ''}<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    'xl/_rels/workbook.xml.rels': strToU8(`${XML}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${DOC_RELS}/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="${DOC_RELS}/styles" Target="styles.xml"/></Relationships>`),
    'xl/sharedStrings.xml': strToU8(`${XML}<sst xmlns="${MAIN}" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((t) => `<si>${t}</si>`).join('')}</sst>`),
    'xl/styles.xml': strToU8(styles),
    'xl/worksheets/sheet1.xml': strToU8(`${XML}<worksheet xmlns="${MAIN}"><dimension ref="A1:M4"/><sheetData>${sheetData}</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`),
  }));
}

describe('import', () => {
  test('CSV with a header row: titles, inferred types, values, primary column, result', async () => {
    const csv = 'ignored line\nName,Qty,Due,Done,Code\n"Smith, J",3,2026-01-05,true,007\nLee,4.5,2026-02-01,false,12\n,,,,\nKim,x,,true,\n';
    const res = await post('/sheets/import?sheetName=Imported&headerRowIndex=1&primaryColumnIndex=0', csv, 'text/csv');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.message, 'SUCCESS');
    const r = res.body.result;
    assert.equal(r.name, 'Imported');
    assert.equal(r.accessLevel, 'OWNER');
    assert.equal(r.type, 'sheet');
    assert.match(r.permalink, /\/sheets\//);
    const s = await sheetOf(r.id);
    assert.deepEqual(s.columns.map((c) => [c.title, c.type, c.primary === true]), [
      ['Name', 'TEXT_NUMBER', true], ['Qty', 'TEXT_NUMBER', false], ['Due', 'DATE', false], ['Done', 'CHECKBOX', false], ['Code', 'TEXT_NUMBER', false],
    ]);
    assert.deepEqual(table(s), [
      ['Smith, J', 3, '2026-01-05', true, '007'],
      ['Lee', 4.5, '2026-02-01', false, 12],
      ['Kim', 'x', null, true, null],
    ]);
    // the event of Create Sheet
    assert.ok((await allEvents<{ objectType: string; action: string; objectId: number }>(s0.api)).some((e) => e.objectType === 'SHEET' && e.action === 'CREATE' && e.objectId === r.id));
  });

  test('without headerRowIndex: Column1.. titles and every line is a row; another primary column', async () => {
    const res = await post('/sheets/import?sheetName=Plain&primaryColumnIndex=1', 'a,1\nb,2,extra\n', 'text/csv');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const s = await sheetOf(res.body.result.id);
    assert.deepEqual(s.columns.map((c) => [c.title, c.type, c.primary === true]), [['Column1', 'TEXT_NUMBER', false], ['Column2', 'TEXT_NUMBER', true], ['Column3', 'TEXT_NUMBER', false]]);
    assert.deepEqual(table(s), [['a', 1, null], ['b', 2, 'extra']]);
  });

  test('CSV text comes back as written, whatever it holds; rows of several batches keep the file order', async () => {
    const odd = ['back\\slash', 'tab\there', 'two\nlines', 'carriage\rreturn', 'crlf\r\nend', '\\N', '\\.', '\\', 'quote "q"', 'é ü 😀', '{"v":1}', '  spaced  '];
    const quoted = (t: string) => `"${t.replaceAll('"', '""')}"`;
    const lines = ['Text,Number'];
    for (const [i, t] of odd.entries()) lines.push(`${quoted(t)},${i}`);
    // past the import's batches of 512 rows
    for (let i = odd.length; i < 1300; i++) lines.push(`row ${i},${i}`);
    const res = await post('/sheets/import?sheetName=Odd&headerRowIndex=0', lines.join('\n') + '\n', 'text/csv');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const s = await sheetOf(res.body.result.id);
    const expected: unknown[][] = odd.map((t, i) => [t, i]);
    for (let i = odd.length; i < 1300; i++) expected.push([`row ${i}`, i]);
    assert.deepEqual(table(s), expected);
    const row = await s0.api.get(`/sheets/${s.id}/rows/${(s.rows[1] as unknown as { id: number }).id}`);
    assert.equal(row.status, 200, JSON.stringify(row.body));
    assert.equal((row.body as { cells: Array<{ value?: unknown }> }).cells[0]!.value, 'tab\there');
  });

  test('XLSX: numbers, dates, booleans and formula results keep their kind', async () => {
    const body = await xlsxOf([
      ['Item', 'Cost', 'When', 'Paid'],
      ['pen', 2.5, new Date(Date.UTC(2026, 2, 4)), true],
      ['ink', { formula: '1+2', result: 3 }, new Date(Date.UTC(2026, 2, 5)), false],
    ]);
    const res = await post('/sheets/import?sheetName=Workbook&headerRowIndex=0', body, XLSX);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const s = await sheetOf(res.body.result.id);
    assert.deepEqual(s.columns.map((c) => [c.title, c.type]), [['Item', 'TEXT_NUMBER'], ['Cost', 'TEXT_NUMBER'], ['When', 'DATE'], ['Paid', 'CHECKBOX']]);
    assert.deepEqual(table(s), [['pen', 2.5, '2026-03-04', true], ['ink', 3, '2026-03-05', false]]);
  });

  test('XLSX cells of every kind: shared and inline strings, rich text, references, formula results, dates by style or row, booleans, errors, blanks', async () => {
    const header = `<row r="1">${'ABCDEFGHIJKLM'.split('').map((c) => `<c r="${c}1" t="inlineStr"><is><t>${c}</t></is></c>`).join('')}</row>`;
    const row2 = '<row r="2" spans="1:13">'
      + '<c r="A2" t="s"><v>0</v></c>'
      + '<c r="B2" t="s"><v>1</v></c>'
      + '<c r="C2" t="inlineStr"><is><t>in&amp;line</t></is></c>'
      + '<c r="D2" t="str"><f>"a"&amp;"b"</f><v>ab</v></c>'
      + '<c r="E2"><f>1+2</f><v>3</v></c>'
      + '<c r="F2" s="1"><v>46085</v></c>'
      + '<c r="G2" s="2"><v>46086</v></c>'
      + '<c r="H2" s="3"><v>2.5</v></c>'
      + '<c r="I2" t="b"><v>1</v></c>'
      + '<c r="J2" t="e"><v>#N/A</v></c>'
      + '<c r="K2" t="inlineStr"><is><t>&#233;t&#xE9; &lt;3</t></is></c>'
      + '<c r="L2" s="3"/>'
      + '<c r="M2"><v>7</v></c>'
      + '</row>';
    // a row with a date style of its own: its cells without a style are dates
    const row4 = '<row r="4" s="1" customFormat="1"><c r="A4" t="s"><v>2</v></c><c r="F4"><v>46087</v></c><c r="I4" t="b"><v>0</v></c></row>';
    const strings = ['plain &amp; &lt;b&gt;', '<r><t>ri</t></r><r><rPr><b/><sz val="11"/></rPr><t>ch</t></r>', 'last'];
    const res = await post('/sheets/import?sheetName=Kinds&headerRowIndex=0', workbookOf(header + row2 + row4, strings), XLSX);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const s = await sheetOf(res.body.result.id);
    assert.deepEqual(s.columns.map((c) => [c.title, c.type]), [
      ['A', 'TEXT_NUMBER'], ['B', 'TEXT_NUMBER'], ['C', 'TEXT_NUMBER'], ['D', 'TEXT_NUMBER'], ['E', 'TEXT_NUMBER'], ['F', 'DATE'], ['G', 'DATE'],
      ['H', 'TEXT_NUMBER'], ['I', 'CHECKBOX'], ['J', 'TEXT_NUMBER'], ['K', 'TEXT_NUMBER'], ['L', 'TEXT_NUMBER'], ['M', 'TEXT_NUMBER'],
    ]);
    assert.deepEqual(table(s), [
      ['plain & <b>', 'rich', 'in&line', 'ab', 3, '2026-03-04', '2026-03-05', 2.5, true, '#N/A', 'été <3', null, 7],
      ['last', null, null, null, null, '2026-03-06', null, null, false, null, null, null, null],
    ]);

    // the 1904 date system: the same serial number is four years and a day later
    const in1904 = await post('/sheets/import?sheetName=Dates1904&headerRowIndex=0', workbookOf('<row r="1"><c r="A1" t="inlineStr"><is><t>When</t></is></c></row><row r="2"><c r="A2" s="1"><v>44623</v></c></row>', [], { date1904: true }), XLSX);
    assert.equal(in1904.status, 200, JSON.stringify(in1904.body));
    assert.deepEqual(table(await sheetOf(in1904.body.result.id)), [['2026-03-04']]);
  });

  test('XLSX as spreadsheet programs may write it: cells without references, rich inline strings, ISO date cells, values in indented XML', async () => {
    const sheetData = '<row r="1"><c t="inlineStr"><is><t>Name</t></is></c><c t="inlineStr"><is><t>When</t></is></c><c t="inlineStr"><is><t>Total</t></is></c></row>\n'
      + '<row>\n  <c t="inlineStr"><is><r><t>fi</t></r><r><rPr><i/></rPr><t xml:space="preserve">rst one</t></r><rPh sb="0" eb="1"><t>phonetic</t></rPh></is></c>\n'
      + '  <c t="d">\n    <v>2026-03-04T00:00:00Z</v>\n  </c>\n  <c t="str">\n    <f>"x"</f>\n    <v>x</v>\n  </c>\n</row>\n'
      + '<row r="4"><c r="C4"><v>12</v></c><c t="inlineStr"><is><t><![CDATA[a <raw> text]]></t></is></c></row>';
    const res = await post('/sheets/import?sheetName=Loose&headerRowIndex=0', workbookOf(sheetData, []), XLSX);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const s = await sheetOf(res.body.result.id);
    assert.deepEqual(s.columns.map((c) => [c.title, c.type]), [['Name', 'TEXT_NUMBER'], ['When', 'DATE'], ['Total', 'TEXT_NUMBER'], ['Column4', 'TEXT_NUMBER']]);
    assert.deepEqual(table(s), [['first one', '2026-03-04', 'x', null], [null, null, 12, 'a <raw> text']]);
  });

  test('XLSX whose worksheet is cut short is refused (1095) and creates nothing', { skip: notInCluster('counts every sheet, which the files running beside it add to') }, async () => {
    const before = await sheetCount();
    const whole = workbookOf('<row r="1"><c r="A1" t="inlineStr"><is><t>A</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row>', []);
    assert.equal((await post('/sheets/import?sheetName=Whole', whole, XLSX)).status, 200);
    const cut = Buffer.from(zipSync({ ...unzipSync(whole), 'xl/worksheets/sheet1.xml': strToU8(`${XML}<worksheet xmlns="${MAIN}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>A</t></is></c></row><row r="2"><c r="A2"><v>1</v>`) }));
    assertError(await post('/sheets/import?sheetName=Cut', cut, XLSX), 400, 1095);
    assert.equal(await sheetCount(), before + 1);
  });

  test('XLSX with the shared strings after the worksheet: the same whole sheet every time, ten at once and one after another', async () => {
    const rows: Array<Array<string | number>> = [['Name', 'City', 'Amount']];
    for (let i = 1; i <= 30; i++) rows.push([`name ${i}`, `city ${i % 7}`, i * 3]);
    const body = workbookStringsLast(rows);
    const expected = rows.slice(1).map((r) => [...r]);
    const check = async (res: { status: number; body: { result: { id: number } } }, what: string) => {
      assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
      const s = await sheetOf(res.body.result.id);
      assert.deepEqual(s.columns.map((c) => c.title), ['Name', 'City', 'Amount'], what);
      assert.deepEqual(table(s), expected, what);
    };
    const atOnce = await Promise.all(Array.from({ length: 10 }, () => post('/sheets/import?sheetName=StringsLast&headerRowIndex=0', body, XLSX)));
    for (const [i, res] of atOnce.entries()) await check(res, `import ${i + 1} of ten at once`);
    for (let i = 0; i < 10; i++) await check(await post('/sheets/import?sheetName=StringsLast&headerRowIndex=0', body, XLSX), `import ${i + 1} of ten in a row`);
  });

  test('into a folder and a workspace; the official SDK imports CSV and XLSX files', async () => {
    const ws = await s0.api.post('/workspaces', { name: 'Import WS' });
    assert.equal(ws.status, 200, JSON.stringify(ws.body));
    const folder = await s0.api.post(`/workspaces/${ws.body.result.id}/folders`, { name: 'Import F' });
    assert.equal(folder.status, 200, JSON.stringify(folder.body));
    const inWs = await post(`/workspaces/${ws.body.result.id}/sheets/import?sheetName=W`, 'x\n', 'text/csv');
    assert.equal(inWs.status, 200, JSON.stringify(inWs.body));
    const inFolder = await post(`/folders/${folder.body.result.id}/sheets/import?sheetName=F`, 'y\n', 'text/csv');
    assert.equal(inFolder.status, 200, JSON.stringify(inFolder.body));
    const f = await s0.api.get(`/folders/${folder.body.result.id}`);
    assert.deepEqual(f.body.sheets.map((x: { id: number }) => x.id), [inFolder.body.result.id]);

    const dir = await mkdtemp(join(tmpdir(), 'sheetd-import-test-'));
    try {
      const csvPath = join(dir, 'people.csv');
      await writeFile(csvPath, 'Name,Age\nAnn,31\nBob,42\n');
      const xlsxPath = join(dir, 'people.xlsx');
      await writeFile(xlsxPath, await xlsxOf([['Name', 'Age'], ['Cid', 50]]));
      const c = smartsheet.createClient({ accessToken: s0.t.adminToken, baseUrl: s0.t.base + '/', logLevel: 'error' });
      const a = await c.sheets.importCsvSheet({ path: csvPath, queryParameters: { sheetName: 'SDK CSV', headerRowIndex: 0 } });
      assert.equal(a.message, 'SUCCESS');
      assert.deepEqual(table(await sheetOf(a.result.id)), [['Ann', 31], ['Bob', 42]]);
      const b = await c.sheets.importXlsxSheetIntoWorkspace({ workspaceId: ws.body.result.id, path: xlsxPath, queryParameters: { sheetName: 'SDK XLSX', headerRowIndex: 0 } });
      assert.equal(b.message, 'SUCCESS');
      const sb = await sheetOf(b.result.id);
      assert.deepEqual(sb.columns.map((x) => x.title), ['Name', 'Age']);
      assert.deepEqual(table(sb), [['Cid', 50]]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('refused imports create nothing: parameters, types, bodies, limits, access', { skip: notInCluster('counts every sheet, which the files running beside it add to') }, async () => {
    const before = await sheetCount();
    assertError(await post('/sheets/import', 'a\n', 'text/csv'), 400, 1012);
    assertError(await post('/sheets/import?sheetName=X&headerRowIndex=-1', 'a\n', 'text/csv'), 400, 1018);
    assertError(await post('/sheets/import?sheetName=X&headerRowIndex=5', 'a\nb\n', 'text/csv'), 400, 1018);
    assertError(await post('/sheets/import?sheetName=X&primaryColumnIndex=2', 'a,b\n', 'text/csv'), 400, 1018);
    assertError(await post('/sheets/import?sheetName=X', '{"a":1}', 'application/json'), 415, 1124);
    assertError(await post('/sheets/import?sheetName=X', 'a,"b\n', 'text/csv'), 400, 1008);
    assertError(await post('/sheets/import?sheetName=X', 'not a zip', XLSX), 400, 1095);
    assertError(await post('/sheets/import?sheetName=X', Buffer.from(zipSync({ 'notes.txt': strToU8('a zip, but no workbook') })), XLSX), 400, 1095);
    assertError(await post('/sheets/import?sheetName=X', '\n\n', 'text/csv'), 400, 1008);
    // 401 columns; 500,001 cells (1001 columns would pass the column limit first, so 100 x 5001)
    assertError(await post('/sheets/import?sheetName=X', Array.from({ length: 401 }, (_, i) => `c${i}`).join(',') + '\n', 'text/csv'), 400, 1061);
    const wide = Array.from({ length: 100 }, (_, i) => String(i)).join(',') + '\n';
    assertError(await post('/sheets/import?sheetName=X', wide.repeat(5001), 'text/csv'), 400, 1061);
    assertError(await post('/folders/12345/sheets/import?sheetName=X', 'a\n', 'text/csv'), 404, 1006);
    const viewer = await makeUser(s0.t, s0.api, 'import-viewer@example.com');
    const ws = await s0.api.post('/workspaces', { name: 'Import RO' });
    await s0.api.post(`/workspaces/${ws.body.result.id}/shares`, [{ email: 'import-viewer@example.com', accessLevel: 'VIEWER' }]);
    const v = client(s0.t.base, viewer.token);
    const denied = await v.call('POST', `/workspaces/${ws.body.result.id}/sheets/import?sheetName=X`, { raw: 'a\n', headers: { 'content-type': 'text/csv' } });
    assert.equal(denied.status, 403, JSON.stringify(denied.body));
    assert.equal(await sheetCount(), before);

    // exactly 500,000 cells is allowed
    const ok = await post('/sheets/import?sheetName=Full', wide.repeat(5000), 'text/csv');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const full = await s0.api.get(`/sheets/${ok.body.result.id}?pageSize=1&page=1`);
    assert.equal(full.body.totalRowCount, 5000);
    assert.equal(full.body.columns.length, 100);
  });
});
