import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimJobs, enqueue, failJob } from '../../src/store/jobs.ts';
import { client, type Client } from '../helpers/http.ts';
import { startSuiteServer, TEST_PG_URL, type TestServer } from '../helpers/server.ts';

let ts: TestServer;
let api: Client;
before(async () => {
  ts = await startSuiteServer();
  api = client(ts.base, ts.adminToken);
});
after(async () => ts.close());

/** The value of one series of the Prometheus text format, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{')) continue;
    const body = line.slice(name.length + 1, line.indexOf('}'));
    const have = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

async function scrape(): Promise<string> {
  const r = await fetch(`${ts.url}/metrics`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  return r.text();
}

test('GET /metrics needs no token and counts requests by route pattern and status', async () => {
  const before = await scrape();
  const ok0 = sample(before, 'sheetd_http_requests_total', { method: 'GET', route: '/2.0/users/me', status: '200' }) ?? 0;
  for (let i = 0; i < 3; i++) assert.equal((await api.get('/users/me')).status, 200);
  assert.equal((await api.get('/sheets/123456789')).status, 404);
  assert.equal((await api.get('/users/me', { token: null })).status, 401);
  const text = await scrape();
  assert.equal(sample(text, 'sheetd_http_requests_total', { method: 'GET', route: '/2.0/users/me', status: '200' }), ok0 + 3);
  assert.equal(sample(text, 'sheetd_http_requests_total', { method: 'GET', route: '/2.0/users/me', status: '401' }), 1);
  // the pattern, never the id
  assert.ok((sample(text, 'sheetd_http_requests_total', { method: 'GET', route: '/2.0/sheets/:sheetId', status: '404' }) ?? 0) >= 1);
  assert.ok(!text.includes('123456789'));
  assert.equal(sample(text, 'sheetd_http_request_duration_seconds_count', { method: 'GET', route: '/2.0/users/me', status: '200' }), ok0 + 3);
  assert.match(text, /^sheetd_process_resident_memory_bytes \d+/m);
  // the latency histogram: cumulative buckets, +Inf holding every request, and the time spent
  const series = { method: 'GET', route: '/2.0/users/me', status: '200' };
  const bounds = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
  const buckets = bounds.map((le) => sample(text, 'sheetd_http_request_duration_seconds_bucket', { ...series, le }));
  assert.ok(buckets.every((b) => b !== undefined), text);
  for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i]! >= buckets[i - 1]!, `bucket ${bounds[i]} holds those below it`);
  assert.equal(buckets.at(-1), ok0 + 3);
  assert.match(text, /^# TYPE sheetd_http_request_duration_seconds histogram$/m);
  assert.match(text, /^# TYPE sheetd_http_requests_total counter$/m);
  const sum = sample(text, 'sheetd_http_request_duration_seconds_sum', series)!;
  assert.ok(sum > 0 && sum < 60 * (ok0 + 3), `sum ${sum}`);
});

test('the job queue by state: due, scheduled for later, dead, each counted as it changes', async () => {
  const counts = (text: string) => ({
    due: sample(text, 'sheetd_jobs', { state: 'due' }),
    scheduled: sample(text, 'sheetd_jobs', { state: 'scheduled' }),
    dead: sample(text, 'sheetd_jobs', { state: 'dead' }),
  });
  const was = counts(await scrape());
  assert.ok(was.due !== undefined && was.scheduled !== undefined && was.dead !== undefined);
  // types no handler claims: the server's worker leaves these where they are
  const far = Date.now() + 3_600_000;
  await ts.server.store.db.transaction().execute(async (tx) => {
    await enqueue(tx, 'metrics-test-never-handled', {}, { runAt: far });
    await enqueue(tx, 'metrics-test-never-handled', {}, { runAt: far });
    await enqueue(tx, 'metrics-test-never-handled', {});
    await enqueue(tx, 'metrics-test-dies', {}, { maxAttempts: 1 });
  });
  assert.deepEqual(counts(await scrape()), { due: was.due + 2, scheduled: was.scheduled + 2, dead: was.dead });
  // a worker of its own claims the last one (scheduled while leased) and it fails for good
  const [job] = await claimJobs(ts.server.store, { worker: 'metrics-test', types: ['metrics-test-dies'], limit: 1, leaseMs: 60_000, now: Date.now() });
  assert.ok(job);
  assert.deepEqual(counts(await scrape()), { due: was.due + 1, scheduled: was.scheduled + 3, dead: was.dead });
  await failJob(ts.server.store.db, job, { error: 'metrics test', runAt: Date.now(), dead: true, now: Date.now() });
  assert.deepEqual(counts(await scrape()), { due: was.due + 1, scheduled: was.scheduled + 2, dead: was.dead + 1 });
});

test('the PostgreSQL pool is reported; SQLite has none', async () => {
  const text = await scrape();
  const total = sample(text, 'sheetd_db_pool_connections', { state: 'total' });
  if (TEST_PG_URL) assert.ok(total !== undefined && total >= 1, text);
  else assert.equal(total, undefined);
});
