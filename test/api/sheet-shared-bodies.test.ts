import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';

// a budget of one byte: every large body waits until no other is in memory
const s0 = serverForFile({ SHEETD_BODY_MEMORY: '1', SHEETD_TEST_MODE: 'true' });

interface SheetBody {
  version: number;
  accessLevel: string;
  userPermissions: { summaryPermissions: string };
  permalink: string;
  rows: Array<{ id: number; accessLevel: string; permalink?: string; modifiedBy?: { name: string }; cells: Array<{ columnId: number; value?: unknown; objectValue?: unknown; columnType?: string }> }>;
}

/**
 * Get Sheet requests that are answered at the same time may share one body (and one gzip) when
 * they would write the same bytes (src/http/present/sheetBodies.ts), and large bodies wait for
 * a memory budget: no caller may get another's view, and no read may answer from before a write.
 */
describe('Get Sheet under concurrent reads', () => {
  const cols = Array.from({ length: 10 }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
  const long = 'y'.repeat(200);
  let sheetId = 0;
  let colIds: number[] = [];
  let viewer = { id: 0, token: '' };

  test('setup: a sheet of more than 1 MB shared with a viewer', async () => {
    const s = await makeSheet(s0.api, 'shared bodies', cols);
    sheetId = s.id;
    colIds = cols.map((c) => s.col[c.title]!.id);
    for (let n = 0; n < 1000; n += 500) {
      const r = await s0.api.post(`/sheets/${sheetId}/rows`, Array.from({ length: 500 }, (_, k) => ({ toBottom: true, cells: colIds.map((id, c) => ({ columnId: id, value: `r${n + k} c${c} ${long}` })) })));
      assert.equal(r.status, 200, r.text.slice(0, 300));
    }
    viewer = await makeUser(s0.t, s0.api, 'shared-viewer@example.com');
    const share = await s0.api.post(`/sheets/${sheetId}/shares`, [{ email: 'shared-viewer@example.com', accessLevel: 'VIEWER' }]);
    assert.equal(share.status, 200, share.text);
  });

  test('an owner and a viewer reading the same version at once each get their own access level', async () => {
    const reads = await Promise.all(Array.from({ length: 8 }, (_, i) => s0.api.get(`/sheets/${sheetId}`, i % 2 === 0 ? {} : { token: viewer.token })));
    assert.ok(reads[0]!.text.length > 1024 * 1024, `${reads[0]!.text.length}`);
    reads.forEach((r, i) => {
      assert.equal(r.status, 200);
      const b = r.body as SheetBody;
      const level = i % 2 === 0 ? 'OWNER' : 'VIEWER';
      assert.equal(b.accessLevel, level);
      assert.equal(b.userPermissions.summaryPermissions, i % 2 === 0 ? 'ADMIN' : 'READ_ONLY');
      assert.equal(b.rows.length, 1000);
      assert.ok(b.rows.every((row) => row.accessLevel === level));
      assert.equal(b.rows[999]!.cells[9]!.value, `r999 c9 ${long}`);
    });
    // the same view asked for at once: the same bytes
    assert.equal(reads[2]!.text, reads[0]!.text);
    assert.equal(reads[3]!.text, reads[1]!.text);
  });

  test('include and exclude variants read at once each get what they asked for, gzipped or not', async () => {
    const variants = ['', '?include=objectValue', '?include=columnType', '?include=rowPermalink', '?include=writerInfo', '?exclude=nonexistentCells'];
    const reads = await Promise.all(variants.flatMap((q) => [s0.api.get(`/sheets/${sheetId}${q}`), s0.api.get(`/sheets/${sheetId}${q}`, { headers: { 'accept-encoding': 'gzip' } })]));
    for (const [k, q] of variants.entries()) {
      const plain = reads[2 * k]!;
      const zipped = reads[2 * k + 1]!;
      assert.equal(plain.status, 200);
      assert.equal(zipped.headers.get('content-encoding'), 'gzip');
      assert.equal(zipped.text, plain.text, q);
      const cell = (plain.body as SheetBody).rows[5]!.cells[3]!;
      const row = (plain.body as SheetBody).rows[5]!;
      assert.equal(cell.value, `r5 c3 ${long}`);
      assert.equal(cell.objectValue !== undefined, q === '?include=objectValue', q);
      assert.equal(cell.columnType !== undefined, q === '?include=columnType', q);
      assert.equal(row.permalink !== undefined, q === '?include=rowPermalink', q);
      assert.equal(row.modifiedBy !== undefined, q === '?include=writerInfo', q);
    }
    assert.equal(new Set(reads.filter((_, i) => i % 2 === 0).map((r) => r.text)).size, variants.length - 1 /* exclude=nonexistentCells changes nothing when every cell has a value */);
  });

  test('a write between reads: the next read, and every read at once after it, shows the new version', async () => {
    const before = await Promise.all([s0.api.get(`/sheets/${sheetId}`), s0.api.get(`/sheets/${sheetId}`)]);
    const v0 = (before[0]!.body as SheetBody).version;
    const row = (before[0]!.body as SheetBody).rows[10]!;
    const put = await s0.api.put(`/sheets/${sheetId}/rows`, [{ id: row.id, cells: [{ columnId: colIds[2], value: 'changed' }] }]);
    assert.equal(put.status, 200, put.text);
    const after = await Promise.all([s0.api.get(`/sheets/${sheetId}`), s0.api.get(`/sheets/${sheetId}`, { token: viewer.token }), s0.api.get(`/sheets/${sheetId}`, { headers: { 'accept-encoding': 'gzip' } })]);
    for (const r of after) {
      const b = r.body as SheetBody;
      assert.equal(b.version, v0 + 1);
      assert.equal(b.rows[10]!.cells[2]!.value, 'changed');
    }
  });

  test('gzip reads one after another (a large body\'s gzip is kept for the next reader of the same bytes): each caller gets its own view, and a write or a rename shows at once', async () => {
    const gz = { headers: { 'accept-encoding': 'gzip' } };
    const first = await s0.api.get(`/sheets/${sheetId}`, gz);
    const again = await s0.api.get(`/sheets/${sheetId}`, gz);
    assert.equal(again.headers.get('content-encoding'), 'gzip');
    assert.equal(again.text, first.text);
    const viewerRead = await s0.api.get(`/sheets/${sheetId}`, { ...gz, token: viewer.token });
    assert.equal((viewerRead.body as SheetBody).accessLevel, 'VIEWER');
    assert.ok((viewerRead.body as SheetBody).rows.every((row) => row.accessLevel === 'VIEWER'));
    const owner = await s0.api.get(`/sheets/${sheetId}`, gz);
    assert.equal((owner.body as SheetBody).accessLevel, 'OWNER');
    const objectValues = await s0.api.get(`/sheets/${sheetId}?include=objectValue`, gz);
    assert.ok((objectValues.body as SheetBody).rows[3]!.cells[1]!.objectValue !== undefined);
    const row = (owner.body as SheetBody).rows[20]!;
    const put = await s0.api.put(`/sheets/${sheetId}/rows`, [{ id: row.id, cells: [{ columnId: colIds[4], value: 'changed while kept' }] }]);
    assert.equal(put.status, 200, put.text);
    const after = await s0.api.get(`/sheets/${sheetId}`, gz);
    assert.equal((after.body as SheetBody).version, (owner.body as SheetBody).version + 1);
    assert.equal((after.body as SheetBody).rows[20]!.cells[4]!.value, 'changed while kept');
    const me = await s0.api.get('/users/me');
    await s0.api.get(`/sheets/${sheetId}?include=writerInfo`, gz);
    const renamed = await s0.api.put(`/users/${me.body.id as number}`, { firstName: 'Kept', lastName: 'Gzip' });
    assert.equal(renamed.status, 200, renamed.text);
    const named = await s0.api.get(`/sheets/${sheetId}?include=writerInfo`, gz);
    assert.equal((named.body as SheetBody).rows[0]!.modifiedBy!.name, 'Kept Gzip');
  });

  test('plain reads one after another (the last large body is kept for the next reader of the same bytes): each caller gets its own view, and a write or a row\'s new discussion shows at once', async () => {
    const first = await s0.api.get(`/sheets/${sheetId}`);
    const again = await s0.api.get(`/sheets/${sheetId}`);
    assert.equal(again.text, first.text);
    const viewerRead = await s0.api.get(`/sheets/${sheetId}`, { token: viewer.token });
    assert.equal((viewerRead.body as SheetBody).accessLevel, 'VIEWER');
    assert.ok((viewerRead.body as SheetBody).rows.every((row) => row.accessLevel === 'VIEWER'));
    const owner = await s0.api.get(`/sheets/${sheetId}`);
    assert.equal((owner.body as SheetBody).accessLevel, 'OWNER');
    const row = (owner.body as SheetBody).rows[30]!;
    const put = await s0.api.put(`/sheets/${sheetId}/rows`, [{ id: row.id, cells: [{ columnId: colIds[6], value: 'changed while kept, plain' }] }]);
    assert.equal(put.status, 200, put.text);
    const after = await s0.api.get(`/sheets/${sheetId}`);
    assert.equal((after.body as SheetBody).version, (owner.body as SheetBody).version + 1);
    assert.equal((after.body as SheetBody).rows[30]!.cells[6]!.value, 'changed while kept, plain');
    // a row's discussions change without a new sheet version
    for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Array<Record<string, string>>) {
      const before = await s0.api.get(`/sheets/${sheetId}?include=discussions`, { headers });
      await s0.api.get(`/sheets/${sheetId}?include=discussions`, { headers });
      type WithThreads = { rows: Array<{ id: number; discussions?: unknown[] }> };
      const target = (before.body as WithThreads).rows[40 + Object.keys(headers).length]!;
      assert.deepEqual(target.discussions, []);
      const d = await s0.api.post(`/sheets/${sheetId}/rows/${target.id}/discussions`, { comment: { text: 'new while kept' } });
      assert.equal(d.status, 200, d.text);
      const next = await s0.api.get(`/sheets/${sheetId}?include=discussions`, { headers });
      const shown = (next.body as WithThreads).rows.find((r) => r.id === target.id)!;
      assert.equal(shown.discussions!.length, 1, JSON.stringify(headers));
    }
  });

  test('a new day between reads: a TODAY() formula shows the new date at once, plain and gzipped, at the same sheet version', async () => {
    const setClock = await s0.api.put('/sheetd/test/clock', { now: '2030-01-01T12:00:00Z', frozen: true });
    assert.equal(setClock.status, 200, setClock.text);
    try {
      const before = (await s0.api.get(`/sheets/${sheetId}`)).body as SheetBody;
      const target = before.rows[60]!;
      const put = await s0.api.put(`/sheets/${sheetId}/rows`, [{ id: target.id, cells: [{ columnId: colIds[2], formula: '=DAY(TODAY())' }] }]);
      assert.equal(put.status, 200, put.text);
      let day = 1;
      for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Array<Record<string, string>>) {
        const first = (await s0.api.get(`/sheets/${sheetId}`, { headers })).body as SheetBody;
        // read twice: the second answer may come from the body (or gzip) kept from the first
        const kept = (await s0.api.get(`/sheets/${sheetId}`, { headers })).body as SheetBody;
        assert.equal(kept.rows[60]!.cells[2]!.value, day, JSON.stringify(headers));
        const advanced = await s0.api.post('/sheetd/test/clock/advance', { by: 'P1D' });
        assert.equal(advanced.status, 200, advanced.text);
        day++;
        const next = (await s0.api.get(`/sheets/${sheetId}`, { headers })).body as SheetBody;
        // the date's change is brought current by the read, not written: the kept body is no longer the same
        assert.equal(next.version, first.version);
        assert.equal(next.rows[60]!.cells[2]!.value, day, JSON.stringify(headers));
      }
    } finally {
      await s0.api.put('/sheetd/test/clock', { real: true });
    }
  });

  test('a user renamed between reads: writerInfo shows the new name', async () => {
    const me = await s0.api.get('/users/me');
    const first = await s0.api.get(`/sheets/${sheetId}?include=writerInfo`);
    const oldName = (first.body as SheetBody).rows[0]!.modifiedBy!.name;
    const renamed = await s0.api.put(`/users/${me.body.id as number}`, { firstName: 'Renamed', lastName: 'Owner' });
    assert.equal(renamed.status, 200, renamed.text);
    const reads = await Promise.all([s0.api.get(`/sheets/${sheetId}?include=writerInfo`), s0.api.get(`/sheets/${sheetId}?include=writerInfo`, { token: viewer.token })]);
    for (const r of reads) assert.equal((r.body as SheetBody).rows[0]!.modifiedBy!.name, 'Renamed Owner');
    assert.notEqual(oldName, 'Renamed Owner');
  });
});
