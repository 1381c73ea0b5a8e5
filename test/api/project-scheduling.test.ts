/**
 * Project scheduling on a sheet with dependencies enabled (the Project Plan template), as a
 * client sees it over HTTP: end dates from start and duration over the working calendar, starts
 * from predecessors (FS, SS, FF, SF, lags), the cascade to successors, parent roll-up, the
 * columns' Gantt tags, the predecessor objects (rowNumber, invalid, inCriticalPath), the
 * refusals (1080, 1155, 1305) and the recomputed rows on the change stream.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverForFile } from '../helpers/setup.ts';
import { refusedUnchanged } from '../helpers/refusals.ts';
import { openStream } from '../helpers/sse.ts';
import { pngBytes } from '../helpers/images.ts';
import { forgetAllSheets } from '../../src/services/sheets/sheetCache.ts';

/** The Project Plan template (globalTemplate PROJECT_SHEET). */
const PROJECT_PLAN = 5816286846604928;
const s = serverForFile();

interface ApiCell { columnId: number; value?: unknown; displayValue?: string; objectValue?: unknown }
interface ApiRow { id: number; rowNumber: number; parentId?: number; cells: ApiCell[] }
interface ApiColumn { id: number; title: string; type: string; tags?: string[] }

/** A sheet made from the Project Plan template, with its columns by title. */
async function projectSheet(name: string, include = '') {
  const made = await s.api.post(`/sheets${include}`, { name, fromId: PROJECT_PLAN });
  assert.equal(made.status, 200, made.text);
  const id = made.body.result.id as number;
  const sheet = (await s.api.get(`/sheets/${id}`)).body as { columns: ApiColumn[] };
  const col = Object.fromEntries(sheet.columns.map((c) => [c.title, c.id])) as Record<string, number>;
  const read = async (query = '') => (await s.api.get(`/sheets/${id}${query}`)).body as { rows: ApiRow[]; columns: ApiColumn[] };
  /** Each row's [Start, Finish, Duration] values, by task name. */
  const dates = async () => {
    const out: Record<string, [unknown, unknown, unknown]> = {};
    for (const r of (await read()).rows) {
      const v = (title: string) => r.cells.find((c) => c.columnId === col[title])?.value;
      out[String(v('Task Name'))] = [v('Start'), v('Finish'), v('Duration')];
    }
    return out;
  };
  /** Adds rows at the bottom from {Task Name: value, ...}; returns their ids. */
  const add = async (rows: Array<Record<string, unknown>>, where: Record<string, unknown> = { toBottom: true }) => {
    const res = await s.api.post(`/sheets/${id}/rows`, rows.map((r) => ({ ...where, cells: Object.entries(r).map(([t, value]) => ({ columnId: col[t], value })) })));
    assert.equal(res.status, 200, res.text);
    // the answer shows each row as the write left it, its dates computed: as a read shows them
    const read = (await s.api.get(`/sheets/${id}`)).body.rows as ApiRow[];
    for (const r of res.body.result as ApiRow[]) {
      const now = read.find((x) => x.id === r.id)!;
      assert.deepEqual(r.cells.map((c) => c.value), now.cells.map((c) => c.value));
    }
    return (res.body.result as Array<{ id: number }>).map((r) => r.id);
  };
  const update = (rowId: number, cells: Record<string, unknown>) =>
    s.api.put(`/sheets/${id}/rows`, [{ id: rowId, cells: Object.entries(cells).map(([t, value]) => ({ columnId: col[t], value })) }]);
  return { id, col, read, dates, add, update };
}

describe('project scheduling', () => {
  test('the template\'s columns carry the Gantt tags; its sample tasks are scheduled one after another', async () => {
    const p = await projectSheet('Tagged plan', '?include=data');
    const tags = Object.fromEntries((await p.read()).columns.map((c) => [c.title, c.tags]));
    assert.deepEqual(tags, {
      'Task Name': undefined,
      'Assigned To': ['GANTT_ASSIGNED_RESOURCE', 'GANTT_DISPLAY_LABEL'],
      Start: ['CALENDAR_START_DATE', 'GANTT_START_DATE'],
      Finish: ['CALENDAR_END_DATE', 'GANTT_END_DATE'],
      Duration: ['GANTT_DURATION'],
      Predecessors: ['GANTT_PREDECESSOR'],
      Status: undefined,
      '% Complete': ['GANTT_PERCENT_COMPLETE'],
      Comments: undefined,
    });
    const one = (await s.api.get(`/sheets/${p.id}/columns/${p.col.Duration}`)).body as ApiColumn;
    assert.deepEqual(one.tags, ['GANTT_DURATION']);
    const listed = (await s.api.get(`/sheets/${p.id}/columns`)).body.data as ApiColumn[];
    assert.deepEqual(listed.find((c) => c.title === 'Start')!.tags, ['CALENDAR_START_DATE', 'GANTT_START_DATE']);
    // a sheet not made from a project template has no tags
    const plain = await s.api.post('/sheets', { name: 'Plain', columns: [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }] });
    assert.equal(plain.body.result.columns[0].tags, undefined);

    const d = await p.dates();
    assert.deepEqual(d['Kick-off'], ['2026-01-05T08:00:00', '2026-01-05T15:59:59', '1d']);
    assert.deepEqual(d.Requirements, ['2026-01-06T08:00:00', '2026-01-16T15:59:59', '9d']);
    assert.deepEqual(d.Design, ['2026-01-19T08:00:00', '2026-01-30T15:59:59', '2w']);
    assert.deepEqual(d.Launch, ['2026-03-16T08:00:00', '2026-03-16T08:00:00', '0d'], 'a milestone after Test');
  });

  test('start and duration give the end in working time; elapsed durations count every day', async () => {
    const p = await projectSheet('Durations');
    await p.add([
      { 'Task Name': 'Three days', Start: '2026-01-05', Duration: '3d' }, // Monday
      { 'Task Name': 'Over a weekend', Start: '2026-01-08', Duration: '3d' }, // Thursday
      { 'Task Name': 'Elapsed', Start: '2026-01-09', Duration: 'e3d' }, // Friday: Fri, Sat, Sun
      { 'Task Name': 'Half a day', Start: '2026-01-05', Duration: '4h' },
      { 'Task Name': 'No start', Duration: '2d' },
    ]);
    const d = await p.dates();
    assert.deepEqual(d['Three days'], ['2026-01-05T08:00:00', '2026-01-07T15:59:59', '3d']);
    assert.deepEqual(d['Over a weekend'], ['2026-01-08T08:00:00', '2026-01-12T15:59:59', '3d']);
    assert.deepEqual(d.Elapsed, ['2026-01-09T08:00:00', '2026-01-11T15:59:59', 'e3d']);
    assert.deepEqual(d['Half a day'], ['2026-01-05T08:00:00', '2026-01-05T11:59:59', '4h']);
    assert.deepEqual(d['No start'], [undefined, undefined, '2d']);
    // numericDates gives the same instant as milliseconds
    const rows = (await p.read('?numericDates=true')).rows;
    const finish = rows[0]!.cells.find((c) => c.columnId === p.col.Finish)!.value;
    assert.equal(finish, Date.parse('2026-01-07T15:59:59Z'));
  });

  test('predecessors give the start, and a change of a predecessor\'s duration moves its successors', async () => {
    const p = await projectSheet('Chain');
    // predecessors name rows of the sheet by number: the rows they name are added first
    const [a] = await p.add([{ 'Task Name': 'A', Start: '2026-01-05', Duration: '3d' }]); // Mon..Wed
    const [b] = await p.add([{ 'Task Name': 'B', Duration: '2d', Predecessors: '1' }]); // Thu..Fri
    const [c, , e] = await p.add([
      { 'Task Name': 'C', Duration: '1d', Predecessors: '2FS +1d' }, // Mon lag: Tue
      { 'Task Name': 'D', Duration: '2d', Predecessors: '1SS' }, // with A: Mon..Tue
      { 'Task Name': 'E', Duration: '2d', Predecessors: '1FF' }, // ends with A: Tue..Wed
      { 'Task Name': 'F', Duration: '1d', Predecessors: '1SF' }, // ends as A starts: Fri before
      { 'Task Name': 'G', Duration: '1d', Predecessors: '2FS -1d' }, // last day of B: Fri
    ]);
    let d = await p.dates();
    assert.deepEqual(d.B, ['2026-01-08T08:00:00', '2026-01-09T15:59:59', '2d']);
    assert.deepEqual(d.C, ['2026-01-13T08:00:00', '2026-01-13T15:59:59', '1d']);
    assert.deepEqual(d.D, ['2026-01-05T08:00:00', '2026-01-06T15:59:59', '2d']);
    assert.deepEqual(d.E, ['2026-01-06T08:00:00', '2026-01-07T15:59:59', '2d']);
    assert.deepEqual(d.F, ['2026-01-02T08:00:00', '2026-01-02T15:59:59', '1d']);
    assert.deepEqual(d.G, ['2026-01-09T08:00:00', '2026-01-09T15:59:59', '1d']);

    // A takes two days more: B, C, E and G follow (C through B); D and F start with A's start
    const es = await openStream(`${s.t.base}/sheetd/sheets/${p.id}/changes`, { authorization: `Bearer ${s.t.adminToken}` });
    try {
      await es.next((ev) => ev.event === 'hello');
      const res = await p.update(a!, { Duration: '5d' });
      assert.equal(res.status, 200, res.text);
      // the answer shows the row as the write left it: its end computed
      assert.equal((res.body.result[0] as ApiRow).cells.find((x) => x.columnId === p.col.Finish)!.value, '2026-01-09T15:59:59');
      d = await p.dates();
      assert.deepEqual(d.A, ['2026-01-05T08:00:00', '2026-01-09T15:59:59', '5d']);
      assert.deepEqual(d.B, ['2026-01-12T08:00:00', '2026-01-13T15:59:59', '2d']);
      assert.deepEqual(d.C, ['2026-01-15T08:00:00', '2026-01-15T15:59:59', '1d']);
      assert.deepEqual(d.D, ['2026-01-05T08:00:00', '2026-01-06T15:59:59', '2d']);
      assert.deepEqual(d.E, ['2026-01-08T08:00:00', '2026-01-09T15:59:59', '2d']);
      assert.deepEqual(d.G, ['2026-01-13T08:00:00', '2026-01-13T15:59:59', '1d']);
      // the moved rows come with the change as recomputed rows, with their new dates
      const upd = await es.next((ev) => ev.event === 'rows-updated');
      assert.deepEqual(upd.data.rowIds, [a]);
      const recomputed = new Map((upd.data.recomputed as ApiRow[]).map((r) => [r.id, r.cells.find((x) => x.columnId === p.col.Start)?.value]));
      assert.equal(recomputed.get(b!), '2026-01-12T08:00:00');
      assert.equal(recomputed.get(c!), '2026-01-15T08:00:00');
      assert.ok(recomputed.has(e!));
    } finally {
      es.close();
    }

    // the predecessors as objects: row numbers, types, lags, the critical path
    const rows = (await p.read('?include=objectValue')).rows;
    const preds = (row: ApiRow) => (row.cells.find((x) => x.columnId === p.col.Predecessors)!.objectValue as { objectType: string; predecessors: Array<Record<string, unknown>> });
    assert.deepEqual(preds(rows[2]!), {
      objectType: 'PREDECESSOR_LIST',
      predecessors: [{ rowId: b, type: 'FS', inCriticalPath: true, rowNumber: 2, lag: { objectType: 'DURATION', days: 1 } }],
    });
    assert.equal(rows[2]!.cells.find((x) => x.columnId === p.col.Predecessors)!.value, '2FS +1d');
    assert.deepEqual(preds(rows[1]!).predecessors, [{ rowId: a, type: 'FS', inCriticalPath: true, rowNumber: 1 }]);
    // D starts with A but ends long before the project does: not critical
    assert.deepEqual(preds(rows[3]!).predecessors, [{ rowId: a, type: 'SS', inCriticalPath: false, rowNumber: 1 }]);
    assert.deepEqual(preds(rows[6]!).predecessors[0]!.lag, { objectType: 'DURATION', days: 1, negative: true });

    // a formula reading a computed date follows it
    const fx = await s.api.put(`/sheets/${p.id}/rows`, [{ id: a, cells: [{ columnId: p.col.Comments, formula: '=DAY(Finish3)' }] }]);
    assert.equal(fx.status, 200, fx.text);
    const comment = async () => (await p.read()).rows[0]!.cells.find((x) => x.columnId === p.col.Comments)!.value;
    assert.equal(await comment(), 15);
    assert.equal((await p.update(b!, { Duration: '3d' })).status, 200);
    assert.equal(await comment(), 16, 'C moved a day with B');
    assert.equal((await p.update(b!, { Duration: '2d' })).status, 200);

    // a filter on the critical path shows A, B and C (C finishes last, after B, after A)
    const f = await s.api.post(`/sheetd/sheets/${p.id}/filters`, { name: 'Critical', query: { criteria: [{ operator: 'ON_CRITICAL_PATH' }] } });
    assert.equal(f.status, 200, f.text);
    const shown = (await s.api.get(`/sheets/${p.id}?filterId=${f.body.result.id}&exclude=filteredOutRows`)).body.rows as ApiRow[];
    assert.deepEqual(shown.map((r) => r.id), [a, b, c]);
  });

  test('a cycle makes the predecessors invalid and keeps the rows\' own dates', async () => {
    const p = await projectSheet('Cycle');
    const [a] = await p.add([{ 'Task Name': 'A', Start: '2026-01-05', Duration: '1d' }]);
    const [b] = await p.add([{ 'Task Name': 'B', Duration: '1d', Predecessors: '1' }]);
    // A after B while B is after A
    const res = await s.api.put(`/sheets/${p.id}/rows`, [{ id: a, cells: [{ columnId: p.col.Predecessors, objectValue: { objectType: 'PREDECESSOR_LIST', predecessors: [{ rowId: b, type: 'FS' }] } }] }]);
    assert.equal(res.status, 200, res.text);
    const rows = (await p.read('?include=objectValue')).rows;
    const list = (row: ApiRow) => (row.cells.find((x) => x.columnId === p.col.Predecessors)!.objectValue as { predecessors: Array<Record<string, unknown>> }).predecessors;
    assert.deepEqual(list(rows[0]!), [{ rowId: b, type: 'FS', inCriticalPath: false, invalid: true }]);
    assert.deepEqual(list(rows[1]!), [{ rowId: a, type: 'FS', inCriticalPath: false, invalid: true }]);
    const d = await p.dates();
    assert.deepEqual(d.A, ['2026-01-05T08:00:00', '2026-01-05T15:59:59', '1d']);
    assert.deepEqual(d.B, ['2026-01-06T08:00:00', '2026-01-06T15:59:59', '1d'], 'B keeps the start it had');

    // a predecessor row deleted: #REF, invalid; C keeps its dates and is its own again
    const [c] = await p.add([{ 'Task Name': 'C', Duration: '2d', Predecessors: '1FS +1d' }]);
    // A ends Monday, a day's lag: Wednesday (A's own predecessor being invalid asks nothing of it)
    assert.deepEqual((await p.dates()).C, ['2026-01-07T08:00:00', '2026-01-08T15:59:59', '2d']);
    assert.equal((await s.api.del(`/sheets/${p.id}/rows?ids=${a}`)).status, 200);
    const cRow = (await p.read('?include=objectValue')).rows.find((r) => r.id === c)!;
    const cell = cRow.cells.find((x) => x.columnId === p.col.Predecessors)!;
    assert.equal(cell.value, '#REFFS +1d');
    assert.deepEqual((cell.objectValue as { predecessors: unknown[] }).predecessors, [{ rowId: a, type: 'FS', inCriticalPath: false, invalid: true, lag: { objectType: 'DURATION', days: 1 } }]);
    assert.deepEqual((await p.dates()).C, ['2026-01-07T08:00:00', '2026-01-08T15:59:59', '2d']);
  });

  test('a copy of a project sheet is scheduled too', async () => {
    const p = await projectSheet('To copy');
    await p.add([{ 'Task Name': 'A', Start: '2026-01-05', Duration: '1d' }]);
    await p.add([{ 'Task Name': 'B', Duration: '1d', Predecessors: '1' }]);
    const copied = await s.api.post(`/sheets/${p.id}/copy?include=data`, { destinationType: 'home', newName: 'Copied plan' });
    assert.equal(copied.status, 200, copied.text);
    const id = copied.body.result.id as number;
    const copy = (await s.api.get(`/sheets/${id}`)).body as { dependenciesEnabled: boolean; columns: ApiColumn[]; rows: ApiRow[] };
    assert.equal(copy.dependenciesEnabled, true);
    const col = (title: string) => copy.columns.find((c) => c.title === title)!;
    assert.deepEqual(col('Duration').tags, ['GANTT_DURATION']);
    const res = await s.api.put(`/sheets/${id}/rows`, [{ id: copy.rows[0]!.id, cells: [{ columnId: col('Duration').id, value: '3d' }] }]);
    assert.equal(res.status, 200, res.text);
    const b = (await s.api.get(`/sheets/${id}`)).body.rows[1] as ApiRow;
    assert.equal(b.cells.find((c) => c.columnId === col('Start').id)!.value, '2026-01-08T08:00:00');
    // the original is as it was
    assert.deepEqual((await p.dates()).B, ['2026-01-06T08:00:00', '2026-01-06T15:59:59', '1d']);
  });

  test('a parent rolls its children up; its predecessors drive its children', async () => {
    const p = await projectSheet('Phases');
    const [prep] = await p.add([{ 'Task Name': 'Prep', Start: '2026-01-05', Duration: '2d', '% Complete': 1 }]);
    const [phase] = await p.add([{ 'Task Name': 'Phase' }]);
    await p.add([
      { 'Task Name': 'Step 1', Start: '2026-01-07', Duration: '2d', '% Complete': 0.5 }, // Wed..Thu
      { 'Task Name': 'Step 2', Start: '2026-01-09', Duration: '3d' }, // Fri..Tue
    ], { parentId: phase, toBottom: true });
    let d = await p.dates();
    assert.deepEqual(d.Phase, ['2026-01-07T08:00:00', '2026-01-13T15:59:59', '5d']);
    const percent = async () => (await p.read()).rows.find((r) => r.id === phase)!.cells.find((c) => c.columnId === p.col['% Complete'])?.value;
    assert.equal(await percent(), 0.2, '% complete weighted by working time');

    // the parent's dates are the children's
    const read = () => p.read();
    for (const title of ['Start', 'Duration', '% Complete']) {
      await refusedUnchanged(read, () => p.update(phase!, { [title]: title === 'Start' ? '2026-02-02' : title === 'Duration' ? '9d' : 0.9 }), 400, 1155, 'value');
    }
    // a predecessor on the parent moves every child after Prep's end... (Step 1 then Step 2 starts with it)
    assert.equal((await p.update(phase!, { Predecessors: '1FS +3d' })).status, 200);
    d = await p.dates();
    assert.deepEqual(d['Step 1'], ['2026-01-12T08:00:00', '2026-01-13T15:59:59', '2d']);
    assert.deepEqual(d['Step 2'], ['2026-01-12T08:00:00', '2026-01-14T15:59:59', '3d']);
    assert.deepEqual(d.Phase, ['2026-01-12T08:00:00', '2026-01-14T15:59:59', '3d']);
    // ...and their starts are no longer theirs to write
    const step1 = (await p.read()).rows.find((r) => r.parentId === phase)!.id;
    await refusedUnchanged(read, () => p.update(step1, { Start: '2026-03-02' }), 400, 1155, 'value');
    void prep;
  });

  test('a whole-sheet read after each kind of write shows every row as Get Row does: row numbers, dates and the critical path follow', async () => {
    const p = await projectSheet('Kept rows');
    const [a] = await p.add([{ 'Task Name': 'A', Start: '2026-01-05', Duration: '2d' }]);
    const [b, c, d] = await p.add([
      { 'Task Name': 'B', Duration: '3d', Predecessors: '1' },
      { 'Task Name': 'C', Duration: '1d', Predecessors: '1' },
      { 'Task Name': 'D' },
    ]);
    const q = '?include=objectValue';
    /** Get Sheet with objectValue, each row checked against its own Get Row; the predecessors by task. */
    const readAll = async () => {
      const sheet = await s.api.get(`/sheets/${p.id}${q}`);
      assert.equal(sheet.status, 200, sheet.text);
      const rows = sheet.body.rows as ApiRow[];
      for (const r of rows) {
        const one = await s.api.get(`/sheets/${p.id}/rows/${r.id}${q}`);
        assert.equal(JSON.stringify(r), JSON.stringify(one.body), `row ${r.rowNumber} as Get Row shows it`);
      }
      const task = (r: ApiRow) => String(r.cells.find((x) => x.columnId === p.col['Task Name'])!.value);
      const predecessors = (r: ApiRow) => {
        const cell = r.cells.find((x) => x.columnId === p.col.Predecessors)!;
        const list = (cell.objectValue as { predecessors?: Array<{ rowNumber: number; inCriticalPath: boolean }> } | undefined)?.predecessors;
        return list === undefined ? undefined : { value: cell.value, critical: list.map((x) => x.inCriticalPath), rowNumbers: list.map((x) => x.rowNumber) };
      };
      return Object.fromEntries(rows.map((r) => [task(r), predecessors(r)]));
    };
    assert.deepEqual(await readAll(), {
      A: undefined, B: { value: '1', critical: [true], rowNumbers: [1] }, C: { value: '1', critical: [false], rowNumbers: [1] }, D: undefined,
    });
    // a cell outside the schedule (its answer, one row of another view, comes between the reads)
    assert.equal((await p.update(d!, { Comments: 'no dates here' })).status, 200);
    const unchanged = await readAll();
    assert.deepEqual(unchanged.B, { value: '1', critical: [true], rowNumbers: [1] });
    // C grows longer than B: the critical path goes through C now
    assert.equal((await p.update(c!, { Duration: '5d' })).status, 200);
    const flipped = await readAll();
    assert.deepEqual([flipped.B, flipped.C], [{ value: '1', critical: [false], rowNumbers: [1] }, { value: '1', critical: [true], rowNumbers: [1] }]);
    // D moves to the top: A is row 2, and the predecessors that name it say so
    const moved = await s.api.put(`/sheets/${p.id}/rows`, [{ id: d, toTop: true }]);
    assert.equal(moved.status, 200, moved.text);
    const renumbered = await readAll();
    assert.deepEqual([renumbered.B, renumbered.C], [{ value: '2', critical: [false], rowNumbers: [2] }, { value: '2', critical: [true], rowNumbers: [2] }]);
    // a second read of the same version is the same text
    assert.deepEqual(await readAll(), renumbered);
    void a;
    void b;
  });

  test('after each kind of write, a read shows the schedule a process loading the sheet afresh computes', async () => {
    const p = await projectSheet('Warm and cold');
    const [a] = await p.add([{ 'Task Name': 'A', Start: '2026-01-05', Duration: '2d', '% Complete': 0.5 }]);
    const [phase] = await p.add([{ 'Task Name': 'Phase', Predecessors: '1FS +1d' }]);
    const [s1, s2] = await p.add([
      { 'Task Name': 'S1', Duration: '3d' },
      { 'Task Name': 'S2', Duration: 'e2d', '% Complete': 1 },
    ], { parentId: phase, toBottom: true });
    const [b] = await p.add([{ 'Task Name': 'B', Duration: '1d', Predecessors: '3SS, 4FF' }]);
    const [c] = await p.add([{ 'Task Name': 'C', Duration: '4h', Predecessors: '5SF -1d' }]);
    const q = '?include=objectValue,format';
    /** Get Sheet as this process shows it after the write, then as one loading the sheet afresh does. */
    const warmIsCold = async (what: string) => {
      const warm = await s.api.get(`/sheets/${p.id}${q}`);
      assert.equal(warm.status, 200, warm.text);
      forgetAllSheets();
      const cold = await s.api.get(`/sheets/${p.id}${q}`);
      assert.equal(warm.text, cold.text, what);
      return warm.body as { rows: ApiRow[] };
    };
    const critical = (sheet: { rows: ApiRow[] }) => sheet.rows.flatMap((r) => {
      const list = (r.cells.find((x) => x.columnId === p.col.Predecessors)?.objectValue as { predecessors?: Array<{ inCriticalPath: boolean }> } | undefined)?.predecessors ?? [];
      return list.map((x) => x.inCriticalPath);
    });
    const first = await warmIsCold('after the rows were added');
    assert.ok(critical(first).includes(true), 'some predecessor is on the critical path');
    const writes: Array<[string, () => Promise<{ status: number; text: string }>]> = [
      ['a duration changed', () => p.update(a!, { Duration: '4d' })],
      ['a cell outside the schedule', () => p.update(b!, { Comments: 'note' })],
      ['a child\'s duration (the parent rolls up)', () => p.update(s1!, { Duration: '1w' })],
      ['a predecessor changed', () => p.update(c!, { Predecessors: '2FS' })],
      ['a duration cleared', () => p.update(s2!, { Duration: '' })],
      ['a % complete changed', () => p.update(s1!, { '% Complete': 0.25 })],
      ['a row moved to the top', () => s.api.put(`/sheets/${p.id}/rows`, [{ id: c, toTop: true }])],
      ['a row outdented', () => s.api.put(`/sheets/${p.id}/rows`, [{ id: s2, outdent: 1 }])],
      ['a row deleted', () => s.api.del(`/sheets/${p.id}/rows?ids=${s2}`)],
      ['the calendar changed', () => s.api.put(`/sheets/${p.id}`, { projectSettings: { nonWorkingDays: ['2026-01-07'], lengthOfDay: 6 } })],
    ];
    for (const [what, write] of writes) {
      const res = await write();
      assert.equal(res.status, 200, `${what}: ${res.text}`);
      await warmIsCold(`after ${what}`);
    }
  });

  test('end dates are not written: 400/1080, in Add Rows and Update Rows; nothing changes', async () => {
    const p = await projectSheet('No ends');
    const [a] = await p.add([{ 'Task Name': 'A', Start: '2026-01-05', Duration: '3d' }]);
    const read = () => p.read();
    await refusedUnchanged(read, () => p.update(a!, { Finish: '2026-01-20' }), 400, 1080);
    await refusedUnchanged(read, () => p.update(a!, { Finish: '' }), 400, 1080);
    await refusedUnchanged(read, () => p.update(a!, { Duration: '4d', Finish: '2026-01-20' }), 400, 1080);
    await refusedUnchanged(read, () => s.api.post(`/sheets/${p.id}/rows`, [{ toBottom: true, cells: [{ columnId: p.col['Task Name'], value: 'B' }, { columnId: p.col.Finish, value: '2026-01-09' }] }]), 400, 1080);
    // with allowPartialSuccess the other rows go in
    const partial = await s.api.post(`/sheets/${p.id}/rows?allowPartialSuccess=true`, [
      { toBottom: true, cells: [{ columnId: p.col['Task Name'], value: 'C' }, { columnId: p.col.Finish, value: '2026-01-09' }] },
      { toBottom: true, cells: [{ columnId: p.col['Task Name'], value: 'D' }, { columnId: p.col.Start, value: '2026-01-05' }, { columnId: p.col.Duration, value: '1d' }] },
    ]);
    assert.equal(partial.status, 200, partial.text);
    assert.equal(partial.body.failedItems[0].error.errorCode, 1080);
    assert.deepEqual((await p.dates()).D, ['2026-01-05T08:00:00', '2026-01-05T15:59:59', '1d']);
  });

  test('a schedule column takes no formula, hyperlink or cell link (1155), no column formula (1305); a driven start is not written (1155)', async () => {
    const p = await projectSheet('No formulas');
    const [a] = await p.add([{ 'Task Name': 'A', Start: '2026-01-05', Duration: '3d' }]);
    const [b] = await p.add([{ 'Task Name': 'B', Duration: '1d', Predecessors: '1' }]);
    const read = () => p.read();
    await refusedUnchanged(read, () => s.api.put(`/sheets/${p.id}/rows`, [{ id: a, cells: [{ columnId: p.col.Duration, formula: '="2d"' }] }]), 400, 1155, 'formula');
    await refusedUnchanged(read, () => s.api.put(`/sheets/${p.id}/rows`, [{ id: a, cells: [{ columnId: p.col['% Complete'], formula: '=1' }] }]), 400, 1155, 'formula');
    await refusedUnchanged(read, () => s.api.put(`/sheets/${p.id}/rows`, [{ id: a, cells: [{ columnId: p.col.Start, value: 'x', hyperlink: { url: 'https://example.com' } }] }]), 400, 1155, 'hyperlink');
    await refusedUnchanged(read, () => s.api.put(`/sheets/${p.id}/columns/${p.col['% Complete']}`, { formula: '=1' }), 400, 1305);
    // an image neither (Add Image to Cell); the end date is not written that way either
    const image = (columnId: number) => s.api.call('POST', `/sheets/${p.id}/rows/${a}/columns/${columnId}/cellimages`, {
      raw: pngBytes(2, 2), headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="dot.png"' },
    });
    await refusedUnchanged(read, () => image(p.col.Duration!), 400, 1155, 'image');
    await refusedUnchanged(read, () => image(p.col.Finish!), 400, 1080);
    // B's start is its predecessor's to give
    await refusedUnchanged(read, () => p.update(b!, { Start: '2026-02-02' }), 400, 1155, 'value');
    // without its predecessor (in the same request) it is B's own again
    const own = await s.api.put(`/sheets/${p.id}/rows`, [{ id: b, cells: [{ columnId: p.col.Predecessors, value: '' }, { columnId: p.col.Start, value: '2026-02-02' }] }]);
    assert.equal(own.status, 200, own.text);
    assert.deepEqual((await p.dates()).B, ['2026-02-02T08:00:00', '2026-02-02T15:59:59', '1d']);
    // clearing the duration clears the end
    assert.equal((await p.update(a!, { Duration: '' })).status, 200);
    assert.deepEqual((await p.dates()).A, ['2026-01-05T08:00:00', undefined, undefined]);
  });

  test('the project settings (working days, holidays, length of day) reschedule the sheet', async () => {
    const p = await projectSheet('Calendar');
    await p.add([{ 'Task Name': 'A', Start: '2026-01-08', Duration: '3d' }]); // Thu, Fri, Mon
    await p.add([{ 'Task Name': 'B', Duration: '10h', Predecessors: '1' }]);
    assert.deepEqual((await p.dates()).A, ['2026-01-08T08:00:00', '2026-01-12T15:59:59', '3d']);
    const before = (await s.api.get(`/sheets/${p.id}`)).body.version as number;
    const res = await s.api.put(`/sheets/${p.id}`, { projectSettings: { workingDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'], nonWorkingDays: ['2026-01-09'], lengthOfDay: 6 } });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.version > before);
    const d = await p.dates();
    // Thursday, (Friday a holiday), Saturday, Monday: 6-hour days from 08:00
    assert.deepEqual(d.A, ['2026-01-08T08:00:00', '2026-01-12T13:59:59', '3d']);
    // 10 hours: Tuesday's 6, Wednesday's 4
    assert.deepEqual(d.B, ['2026-01-13T08:00:00', '2026-01-14T11:59:59', '10h']);
    assert.equal((await s.api.get(`/sheets/${p.id}`)).body.version, res.body.version);
  });
});
