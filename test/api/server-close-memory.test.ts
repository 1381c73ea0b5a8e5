import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer } from '../helpers/server.ts';
import { client } from '../helpers/http.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { sheetCacheStats } from '../../src/services/sheets/sheetCache.ts';
import { keptBodyBytes } from '../../src/http/present/sheetBodies.ts';

/**
 * A closed server lets go of what it kept for its next reads: the models of its sheets and the
 * last large Get Sheet body (module-level, src/services/sheets/sheetCache.ts and
 * src/http/present/sheetBodies.ts). A server started after it in the same process (the sheet
 * bench's PostgreSQL run after its SQLite one, test files) would otherwise carry them.
 */
test('closing a server forgets its sheet models and its kept large body', async (t) => {
  if (process.env.SHEETD_TEST_BASE_URL) return t.skip('in-process caches only');
  const srv = await startSuiteServer();
  let closed = false;
  try {
    const api = client(srv.base, srv.adminToken);
    const cols = Array.from({ length: 10 }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
    const s = await makeSheet(api, 'kept', cols);
    const colIds = cols.map((c) => s.col[c.title]!.id);
    const long = 'z'.repeat(200);
    for (let n = 0; n < 1000; n += 500) {
      const r = await api.post(`/sheets/${s.id}/rows`, Array.from({ length: 500 }, (_, k) => ({ toBottom: true, cells: colIds.map((id, c) => ({ columnId: id, value: `r${n + k} c${c} ${long}` })) })));
      assert.equal(r.status, 200, r.text.slice(0, 300));
    }
    const read = await api.get(`/sheets/${s.id}`);
    assert.equal(read.status, 200);
    assert.ok(read.text.length > 1024 * 1024, `${read.text.length}`);
    // the body is kept once its response has closed
    for (let i = 0; i < 50 && keptBodyBytes() === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(keptBodyBytes() > 1024 * 1024, `kept ${keptBodyBytes()}`);
    assert.ok(sheetCacheStats().models > 0);
    await srv.close();
    closed = true;
    assert.equal(keptBodyBytes(), 0);
    assert.equal(sheetCacheStats().models, 0);
  } finally {
    if (!closed) await srv.close();
  }
});
