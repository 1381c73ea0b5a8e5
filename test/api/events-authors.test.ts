import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recorded } from '../helpers/http.ts';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';

// Every event names who did it (userId) and whose token asked (requestUserId); the system's own
// events (bootstrap, jobs) name the system admin who owns the organization. The time is also
// under eventTimestamp, the name the Python SDK reads, beside the spec's eventTimeStamp.
const s = serverForFile();

type Ev = { eventId: string; objectType: string; action: string; objectId: number; eventTimeStamp: unknown; eventTimestamp: unknown; userId?: unknown; requestUserId?: unknown; source: string; additionalDetails?: { origin?: string } };

async function allEvents(q = ''): Promise<Ev[]> {
  const since = q.includes('numericDates=true') ? '946684800000' : '2000-01-01T00:00:00Z';
  let r = await s.api.get(`/events?since=${since}&maxCount=10000${q}`);
  assert.equal(r.status, 200, r.text);
  const out: Ev[] = (r.body.data as Ev[]).map(recorded);
  while (r.body.moreAvailable) {
    r = await s.api.get(`/events?streamPosition=${r.body.nextStreamPosition}&maxCount=10000${q}`);
    out.push(...(r.body.data as Ev[]).map(recorded));
  }
  return out;
}

test('every event carries userId, requestUserId and eventTimestamp; system events name the admin who owns the organization', async () => {
  const me = (await s.api.get('/users/me')).body.id as number;
  const sheet = await makeSheet(s.api, 'events authors', [{ title: 'A', type: 'TEXT_NUMBER', primary: true }]);
  const events = await allEvents();
  assert.ok(events.length > 0);
  for (const e of events) {
    assert.equal(typeof e.userId, 'number', JSON.stringify(e));
    assert.equal(typeof e.requestUserId, 'number', JSON.stringify(e));
    assert.equal(typeof e.eventTimestamp, 'string', JSON.stringify(e));
    assert.equal(e.eventTimestamp, e.eventTimeStamp);
  }
  // the bootstrap made the organization's first admin without any user acting: a system event
  const system = events.filter((e) => e.additionalDetails?.origin === 'SYSTEM');
  for (const e of system) assert.equal(e.source, 'UNKNOWN');
  assert.ok(system.some((e) => e.objectType === 'USER' && e.objectId === me), 'the bootstrap event of the admin');
  for (const e of system) assert.deepEqual([e.userId, e.requestUserId], [me, me], JSON.stringify(e));
  const created = events.find((e) => e.objectType === 'SHEET' && e.action === 'CREATE' && e.objectId === sheet.id)!;
  assert.deepEqual([created.userId, created.requestUserId], [me, me]);
  // numericDates: both as epoch milliseconds
  const numeric = (await allEvents('&numericDates=true')).find((e) => e.eventId === created.eventId)!;
  assert.equal(typeof numeric.eventTimestamp, 'number');
  assert.equal(numeric.eventTimestamp, numeric.eventTimeStamp);
  assert.equal(Math.floor((numeric.eventTimestamp as number) / 1000) * 1000, Date.parse(created.eventTimestamp as string));
});
