import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { clock } from '../../src/clock.ts';
import { serverForFile } from '../helpers/setup.ts';
import { allEvents } from '../helpers/http.ts';
import { cellOf, makeSheet } from '../helpers/sheets.ts';

/**
 * A read computes values (TODAY() on a new day, a cross-sheet source committed since) for the
 * reader only: it stores nothing, and what a later write stores and answers is the same whether
 * or not the sheet was read in between. Before, a read's results were kept on the cached model
 * and saved by the next write of the sheet, whatever it changed: a write that changed nothing
 * bumped the version of a sheet that had been read, and not of one that had not.
 */
const s0 = serverForFile();

// the server's time: noon UTC today (a day change in any organization's offset is ours alone),
// moved a day on below
const realNow = clock.now;
const DAY = 86_400_000;
let offset = Math.floor(realNow() / DAY) * DAY + DAY / 2 - realNow();
clock.now = () => realNow() + offset;
after(() => { clock.now = realNow; });

type Row = { id: number; cells: Array<{ columnId: number; value?: unknown }> };

/** What the database holds (what another process would load) as the TODAY() row's value. */
async function storedDay(s: { today: { id: number }; col: Record<string, { id: number }> }): Promise<unknown> {
  const r = await s0.t.server.store.db.selectFrom('rows').select('cells').where('id', '=', s.today.id).executeTakeFirstOrThrow();
  return (JSON.parse(r.cells) as Record<string, { v?: unknown }>)[String(s.col.Day!.id)]?.v;
}

async function getSheet(id: number): Promise<{ version: number; rows: Row[] }> {
  const res = await s0.api.get(`/sheets/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { version: number; rows: Row[] };
}

/** A sheet with a row showing =TODAY() and a row of plain text. */
async function todaySheet(name: string) {
  const s = await makeSheet(s0.api, name, [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'Day', type: 'TEXT_NUMBER' }]);
  const add = await s0.api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'today' }, { columnId: s.col.Day!.id, formula: '=TODAY()' }] },
    { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'plain' }, { columnId: s.col.Day!.id, value: 'x' }] },
  ]);
  assert.equal(add.status, 200, JSON.stringify(add.body));
  const [today, plain] = add.body.result as Row[];
  return { ...s, today: today!, plain: plain! };
}

test('a read on a new day stores nothing, and the next write stores the same as on a sheet nobody read', async () => {
  const read = await todaySheet('Read before the write');
  const unread = await todaySheet('Not read before the write');
  // both held in memory with their formulas computed, yesterday's TODAY() stored
  const yesterday = cellOf((await getSheet(read.id)).rows[0]!, read.col.Day!.id).value;
  assert.equal(cellOf((await getSheet(unread.id)).rows[0]!, unread.col.Day!.id).value, yesterday);
  const storedYesterday = await storedDay(read);
  assert.equal(storedYesterday, yesterday);
  assert.equal(await storedDay(unread), yesterday);
  const since = new Date(clock.now() - 60_000).toISOString();

  offset += DAY;
  const version = async (id: number) => (await s0.api.get(`/sheets/${id}/version`)).body.version as number;
  const before = { read: await version(read.id), unread: await version(unread.id) };
  // the read shows today's date ...
  const shown = cellOf((await getSheet(read.id)).rows[0]!, read.col.Day!.id).value;
  assert.notEqual(shown, yesterday);
  // ... and stores nothing
  assert.equal(await version(read.id), before.read);
  assert.equal(await storedDay(read), storedYesterday);

  // the same write of both sheets, one that changes nothing of the sheet by itself: a personal filter
  const write = async (s: typeof read) => {
    const res = await s0.api.post(`/sheetd/sheets/${s.id}/filters`, {
      name: 'Mine', filterType: 'PERSONAL', query: { operator: 'AND', criteria: [{ columnId: s.col.Day!.id, operator: 'IS_NOT_BLANK' }] },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return { answered: res.body.version as number | undefined, version: await version(s.id) };
  };
  const written = { read: await write(read), unread: await write(unread) };
  // both answer alike: each write finds yesterday's TODAY() stored and stores today's (a change
  // of the sheet: its version goes up, and the answer names it)
  assert.deepEqual(written.read, { answered: before.read + 1, version: before.read + 1 }, `the sheet read before: ${JSON.stringify({ before, written })}`);
  assert.deepEqual(written.unread, { answered: before.unread + 1, version: before.unread + 1 }, `the sheet not read before: ${JSON.stringify({ before, written })}`);
  for (const s of [read, unread]) {
    assert.equal(await storedDay(s), shown);
    assert.equal(cellOf((await getSheet(s.id)).rows[0]!, s.col.Day!.id).value, shown);
  }
  // computed values are no change a client made: no ROW UPDATE of the TODAY() row on either sheet
  const events = await allEvents<{ objectType: string; action: string; objectId: number }>(s0.api, since);
  assert.deepEqual(events.filter((e) => e.objectType === 'ROW' && e.action === 'UPDATE' && (e.objectId === read.today.id || e.objectId === unread.today.id)), []);
});
