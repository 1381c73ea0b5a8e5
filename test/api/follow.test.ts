import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { cellOf, makeSheet } from '../helpers/sheets.ts';
import { followTestHooks } from '../../src/services/computed/propagation.ts';
import { allEvents } from '../helpers/http.ts';

/**
 * Following a source (cell links, cross-sheet references) when a read of the dependent sheet
 * lands between the source's commit and the dependent's follow-up write.
 */
const s0 = serverForFile();

type Row = { id: number; cells: Array<{ columnId: number; value?: unknown }> };

async function rowsOf(id: number): Promise<Row[]> {
  const res = await s0.api.get(`/sheets/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.rows as Row[];
}

/** The cells of a row as the database holds them (what another process would load). */
async function storedCells(rowId: number): Promise<Record<string, { v?: unknown }>> {
  const r = await s0.t.server.store.db.selectFrom('rows').select('cells').where('id', '=', rowId).executeTakeFirstOrThrow();
  return JSON.parse(r.cells) as Record<string, { v?: unknown }>;
}

/** The columnIds of the ROW UPDATE events of a row since `since`, oldest first. */
async function rowUpdates(since: string, rowId: number): Promise<unknown[]> {
  const data = await allEvents<{ objectType: string; action: string; objectId: number; additionalDetails: { columnIds?: number[] } }>(s0.api, since);
  return data.filter((e) => e.objectType === 'ROW' && e.action === 'UPDATE' && e.objectId === rowId).map((e) => e.additionalDetails.columnIds);
}

/** A promise with its resolver. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Source "Prices" (Item, Price: 3, 5, 7) and a dependent with `=SUM({Prices})` and a cell linked to Price of row 1. */
async function sourceAndDependent(tag: string) {
  const src = await makeSheet(s0.api, `Prices ${tag}`, [{ title: 'Item', type: 'TEXT_NUMBER', primary: true }, { title: 'Price', type: 'TEXT_NUMBER' }]);
  const add = await s0.api.post(`/sheets/${src.id}/rows`, [3, 5, 7].map((p, i) => ({ toBottom: true, cells: [{ columnId: src.col.Item!.id, value: `i${i}` }, { columnId: src.col.Price!.id, value: p }] })));
  assert.equal(add.status, 200, JSON.stringify(add.body));
  const srcRows = add.body.result as Row[];
  const dst = await makeSheet(s0.api, `Orders ${tag}`, [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'Total', type: 'TEXT_NUMBER' }, { title: 'Linked', type: 'TEXT_NUMBER' }]);
  const dAdd = await s0.api.post(`/sheets/${dst.id}/rows`, [{ toBottom: true, cells: [{ columnId: dst.col.Name!.id, value: 'sum' }] }, { toBottom: true, cells: [{ columnId: dst.col.Name!.id, value: 'link' }] }]);
  assert.equal(dAdd.status, 200, JSON.stringify(dAdd.body));
  const dstRows = dAdd.body.result as Row[];
  const ref = await s0.api.post(`/sheets/${dst.id}/crosssheetreferences`, { name: 'Prices', sourceSheetId: src.id, startColumnId: src.col.Price!.id, endColumnId: src.col.Price!.id });
  assert.equal(ref.status, 200, JSON.stringify(ref.body));
  const set = await s0.api.put(`/sheets/${dst.id}/rows`, [
    { id: dstRows[0]!.id, cells: [{ columnId: dst.col.Total!.id, formula: '=SUM({Prices})' }] },
    { id: dstRows[1]!.id, cells: [{ columnId: dst.col.Linked!.id, value: null, linkInFromCell: { sheetId: src.id, rowId: srcRows[0]!.id, columnId: src.col.Price!.id } }] },
  ]);
  assert.equal(set.status, 200, JSON.stringify(set.body));
  return { src, srcRows, dst, dstRows };
}

describe('following a source', () => {
  test('a read of the dependent between the source commit and its follow-up write: stored values, history and events still follow', async () => {
    const { src, srcRows, dst, dstRows } = await sourceAndDependent('r1');
    const total = String(dst.col.Total!.id);
    const linked = String(dst.col.Linked!.id);
    // the dependent's model is cached, with its formulas built and the source version they read
    let rows = await rowsOf(dst.id);
    assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 15);
    assert.equal((await storedCells(dstRows[0]!.id))[total]!.v, 15);
    const since = new Date(Date.now() - 60_000).toISOString();
    const updatesBefore = await rowUpdates(since, dstRows[1]!.id);
    const versionBefore = (await s0.api.get(`/sheets/${dst.id}/version`)).body.version as number;

    const paused = signal();
    const release = signal();
    followTestHooks.beforeFollow = async (_sourceId, targetId) => {
      if (targetId !== dst.id) return;
      paused.resolve();
      await release.promise;
    };
    let write;
    try {
      write = s0.api.put(`/sheets/${src.id}/rows`, { id: srcRows[0]!.id, cells: [{ columnId: src.col.Price!.id, value: 30 }] });
      // the source has committed; the dependent's follow-up write has not begun
      await paused.promise;
      for (let i = 0; i < 3; i++) {
        rows = await rowsOf(dst.id);
        // readers see the new result at once (computed for them from the committed source)
        assert.equal(cellOf(rows[0]!, dst.col.Total!.id).value, 42);
      }
    } finally {
      release.resolve();
      delete followTestHooks.beforeFollow;
    }
    const res = await write;
    assert.equal(res.status, 200, JSON.stringify(res.body));

    // once the source write has answered, the database holds the dependent's new values
    const stored = await storedCells(dstRows[0]!.id);
    assert.equal(stored[total]!.v, 42);
    assert.equal((await storedCells(dstRows[1]!.id))[linked]!.v, 30);
    assert.ok(((await s0.api.get(`/sheets/${dst.id}/version`)).body.version as number) > versionBefore);
    // the linked cell's history keeps the value it had
    const hist = await s0.api.get(`/sheets/${dst.id}/rows/${dstRows[1]!.id}/columns/${dst.col.Linked!.id}/history`);
    assert.equal(hist.status, 200, JSON.stringify(hist.body));
    assert.deepEqual(hist.body.data.map((h: { value?: unknown }) => h.value), [30, 3]);
    // and the follow-up write recorded a ROW UPDATE of the linked cell's row
    const updates = await rowUpdates(since, dstRows[1]!.id);
    assert.deepEqual(updates.slice(updatesBefore.length), [[dst.col.Linked!.id]]);
  });

  test('a circle of links (A follows B follows A) settles on the first pass: the write answers, each sheet is followed once', async () => {
    const a = await makeSheet(s0.api, 'Circle A', [{ title: 'P', type: 'TEXT_NUMBER', primary: true }, { title: 'Q', type: 'TEXT_NUMBER' }, { title: 'R', type: 'TEXT_NUMBER' }]);
    const b = await makeSheet(s0.api, 'Circle B', [{ title: 'X', type: 'TEXT_NUMBER', primary: true }, { title: 'Y', type: 'TEXT_NUMBER' }]);
    const aRow = (await s0.api.post(`/sheets/${a.id}/rows`, { cells: [{ columnId: a.col.P!.id, value: 'a' }, { columnId: a.col.Q!.id, value: 1 }] })).body.result as Row;
    const bRow = (await s0.api.post(`/sheets/${b.id}/rows`, { cells: [{ columnId: b.col.X!.id, value: 'b' }] })).body.result as Row;
    // B.Y shows A.Q, A.R shows B.Y
    const l1 = await s0.api.put(`/sheets/${b.id}/rows`, { id: bRow.id, cells: [{ columnId: b.col.Y!.id, value: null, linkInFromCell: { sheetId: a.id, rowId: aRow.id, columnId: a.col.Q!.id } }] });
    assert.equal(l1.status, 200, JSON.stringify(l1.body));
    const l2 = await s0.api.put(`/sheets/${a.id}/rows`, { id: aRow.id, cells: [{ columnId: a.col.R!.id, value: null, linkInFromCell: { sheetId: b.id, rowId: bRow.id, columnId: b.col.Y!.id } }] });
    assert.equal(l2.status, 200, JSON.stringify(l2.body));
    assert.equal(cellOf(l2.body.result, a.col.R!.id).value, 1);

    const followed: Array<[number, number]> = [];
    followTestHooks.beforeFollow = async (sourceId, targetId) => void followed.push([sourceId, targetId]);
    let res;
    try {
      res = await s0.api.put(`/sheets/${a.id}/rows`, { id: aRow.id, cells: [{ columnId: a.col.Q!.id, value: 2 }] });
    } finally {
      delete followTestHooks.beforeFollow;
    }
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // A -> B is followed; B -> A is not, A being where the chain began
    assert.deepEqual(followed, [[a.id, b.id]]);
    assert.equal(cellOf((await rowsOf(b.id))[0]!, b.col.Y!.id).value, 2);
    // so A.R, reading B.Y, catches up on B's next change rather than in this chain
    assert.equal(cellOf((await rowsOf(a.id))[0]!, a.col.R!.id).value, 1);
  });
});
