import http from 'node:http';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';

const s0 = serverForFile();

/**
 * The body of a large Get Sheet response is written into a Buffer that serves a later response
 * once this one has finished with it (src/http/present/bodyBuffers.ts): no response may see
 * the bytes of another.
 */
describe('large Get Sheet bodies', () => {
  test('Get Sheet of a large sheet every response whole and current, also concurrent and gzipped', async () => {
    const cols = Array.from({ length: 10 }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
    const s = await makeSheet(s0.api, 'large', cols);
    const ids = cols.map((c) => s.col[c.title]!.id);
    const long = 'x'.repeat(200);
    for (let n = 0; n < 2000; n += 500) {
      const r = await s0.api.post(`/sheets/${s.id}/rows`, Array.from({ length: 500 }, (_, k) => ({ toBottom: true, cells: ids.map((id, c) => ({ columnId: id, value: `row ${n + k} column ${c} ${long}` })) })));
      assert.equal(r.status, 200, r.text.slice(0, 300));
    }
    const first = await s0.api.get(`/sheets/${s.id}`);
    assert.equal(first.status, 200);
    assert.ok(first.text.length > 4 * 1024 * 1024, `${first.text.length}`);
    const rowIds = (first.body.rows as Array<{ id: number }>).map((r) => r.id);
    const check = (text: string, version: number, mark: string) => {
      const body = JSON.parse(text) as { version: number; rows: Array<{ cells: Array<{ value?: unknown }> }> };
      assert.equal(body.version, version);
      assert.equal(body.rows.length, 2000);
      assert.equal(body.rows[1999]!.cells[1]!.value, `row 1999 column 1 ${long}`);
      assert.equal(body.rows[0]!.cells[0]!.value, mark);
    };
    check(first.text, first.body.version, `row 0 column 0 ${long}`);
    // gzip when the client allows it (the route compresses large bodies itself), not otherwise
    const zipped = await s0.api.get(`/sheets/${s.id}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers.get('content-encoding'), 'gzip');
    assert.equal(zipped.text, first.text);
    for (const ae of ['gzip;q=0', 'identity', 'br;q=1, *;q=0']) {
      const plain = await s0.api.get(`/sheets/${s.id}`, { headers: { 'accept-encoding': ae } });
      assert.equal(plain.headers.get('content-encoding') ?? 'identity', 'identity', ae);
      assert.equal(plain.text, first.text);
    }
    // a response read slowly (its client does not read yet): a second, different response
    // written meanwhile does not change the bytes of the first still to be sent
    const slow = await new Promise<{ done: Promise<string>; resume(): void }>((resolve, reject) => {
      const req = http.get(`${s0.t.base}/sheets/${s.id}?numericDates=true`, { headers: { authorization: `Bearer ${s0.t.adminToken}`, 'accept-encoding': 'identity' } }, (res) => {
        res.pause();
        const chunks: Buffer[] = [];
        const done = new Promise<string>((ok, fail) => {
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => ok(Buffer.concat(chunks).toString('utf8')));
          res.on('error', fail);
        });
        resolve({ done, resume: () => res.resume() });
      });
      req.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 50));
    const meanwhile = await s0.api.get(`/sheets/${s.id}?include=format`);
    assert.equal(meanwhile.status, 200);
    slow.resume();
    assert.equal(await slow.done, (await s0.api.get(`/sheets/${s.id}?numericDates=true`)).text);
    // different bodies at once (dates as text or as numbers, identity or gzip)
    const queries = ['', '?numericDates=true', '?include=format', '?numericDates=true&include=format'];
    for (let round = 0; round < 3; round++) {
      const mark = `changed ${round}`;
      const put = await s0.api.put(`/sheets/${s.id}/rows`, [{ id: rowIds[0], cells: [{ columnId: ids[0], value: mark }] }]);
      assert.equal(put.status, 200, put.text);
      const version = put.body.version as number;
      const at = await Promise.all(queries.flatMap((q) => [s0.api.get(`/sheets/${s.id}${q}`), s0.api.get(`/sheets/${s.id}${q}`, { headers: { 'accept-encoding': 'gzip' } })]));
      for (let i = 0; i < queries.length; i++) {
        const one = await s0.api.get(`/sheets/${s.id}${queries[i]}`);
        check(one.text, version, mark);
        assert.equal(at[2 * i]!.text, one.text);
        assert.equal(at[2 * i + 1]!.text, one.text);
      }
    }
  });

  test('HEAD of a large sheet, then GET: the GET body is whole', async () => {
    const cols = Array.from({ length: 10 }, (_, i) => ({ title: `C${i}`, type: 'TEXT_NUMBER', ...(i === 0 ? { primary: true } : {}) }));
    const s = await makeSheet(s0.api, 'head', cols);
    const ids = cols.map((c) => s.col[c.title]!.id);
    const r = await s0.api.post(`/sheets/${s.id}/rows`, Array.from({ length: 500 }, (_, k) => ({ toBottom: true, cells: ids.map((id, c) => ({ columnId: id, value: `row ${k} column ${c} ${'y'.repeat(300)}` })) })));
    assert.equal(r.status, 200);
    const before = await s0.api.get(`/sheets/${s.id}`);
    assert.ok(before.text.length > 1024 * 1024);
    const head = await s0.api.call('HEAD', `/sheets/${s.id}`);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    const after = await s0.api.get(`/sheets/${s.id}?numericDates=true`);
    assert.equal(after.status, 200);
    assert.equal(JSON.parse(after.text).rows.length, 500);
    assert.equal((await s0.api.get(`/sheets/${s.id}`)).text, before.text);
  });
});
