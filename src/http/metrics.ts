import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Store } from '../store/db.ts';
import { operationalGauges } from '../services/platform/metrics.ts';

/**
 * Prometheus metrics (prom-client): requests and their latency by route, the
 * job queue and the database pool, and the process's own figures. A registry per app, so that
 * several servers in one process (tests) count apart. `onResponse` counts a request (the app's
 * one hook after every answer calls it); `scrape` serves GET /metrics.
 */
export function installMetrics(store: Store): { onResponse: (req: FastifyRequest, reply: FastifyReply) => void; scrape: (req: FastifyRequest, reply: FastifyReply) => Promise<string> } {
  const register = new Registry();
  collectDefaultMetrics({ register, prefix: 'sheetd_' });
  // the route pattern, not the URL: ids would make a series per object
  const tally = new RequestTally();
  register.registerMetric(tally.counter() as never);
  register.registerMetric(tally.histogram() as never);
  const jobs = new Gauge({ name: 'sheetd_jobs', help: 'Background jobs by state (due: waiting for a worker; scheduled: later or running; dead: gave up)', labelNames: ['state'], registers: [register] });
  const pool = new Gauge({ name: 'sheetd_db_pool_connections', help: 'PostgreSQL pool connections by state (absent on SQLite)', labelNames: ['state'], registers: [register] });
  const cachedModels = new Gauge({ name: 'sheetd_sheet_cache_models', help: 'Sheet models this process holds in memory', registers: [register] });
  const indexThread = new Gauge({ name: 'sheetd_search_index_thread', help: 'Whether the search index is caught up on its own thread (1), or on the server thread (0: SHEETD_INDEX_THREAD off, the thread not yet ready, or it could not start or ended; see the log)', registers: [register] });
  // counted by the sheet cache; the counter catches up at each scrape
  const droppedAsOlder = new Counter({ name: 'sheetd_sheet_cache_invalidated_total', help: 'Cached sheet models dropped because another process announced a newer version (Redis)', registers: [register] });
  let dropped = 0;

  const onResponse = (req: FastifyRequest, reply: FastifyReply): void => {
    const settings = req.routeSettings;
    tally.count(req.method, (settings ? settings.url : req.routeOptions.url) ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  };

  const scrape = async (_req: FastifyRequest, reply: FastifyReply): Promise<string> => {
    const g = await operationalGauges(store);
    for (const [state, n] of Object.entries(g.jobs)) jobs.set({ state }, n);
    if (g.pool) for (const [state, n] of Object.entries(g.pool)) pool.set({ state }, n);
    cachedModels.set(g.sheetCache.models);
    indexThread.set(g.indexThread ? 1 : 0);
    droppedAsOlder.inc(g.sheetCache.droppedAsOlder - dropped);
    dropped = g.sheetCache.droppedAsOlder;
    reply.type(register.contentType);
    return register.metrics();
  };
  return { onResponse, scrape };
}

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A metric as prom-client's registry reads it (what its own metrics' get() gives). */
interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Array<{ metricName?: string; labels: Record<string, string | number>; value: number }>;
}

/** One series of the request metrics: a method, a route pattern and a status. */
interface Series {
  labels: { method: string; route: string; status: string };
  status: number;
  count: number;
  sum: number;
  /** Requests per bucket (not cumulative); the last one is +Inf's. */
  buckets: Float64Array;
}

/**
 * The requests answered and their latency by method, route pattern and status:
 * sheetd_http_requests_total (a counter) and sheetd_http_request_duration_seconds (a histogram),
 * shown by prom-client's registry as its own Counter and Histogram show them. Counted by hand
 * because every request pays for it: prom-client's labelled inc and observe (a labels object,
 * checked and hashed, per call) and their hook cost GET /users/me about 5% of its requests a
 * second (docs/speed.md); here a request is a lookup by its route and a few additions.
 */
export class RequestTally {
  /** Every series, in the order they began. */
  private readonly series: Series[] = [];
  /**
   * The series by route pattern: the pattern is the route's own string, whose hash is kept in it
   * (a key made per request, method, status and route joined, had to be hashed each time).
   */
  private readonly byRoute = new Map<string, Series[]>();

  count(method: string, route: string, status: number, seconds: number): void {
    let ofRoute = this.byRoute.get(route);
    if (ofRoute === undefined) this.byRoute.set(route, (ofRoute = []));
    let s: Series | undefined;
    for (const x of ofRoute) {
      if (x.status === status && x.labels.method === method) {
        s = x;
        break;
      }
    }
    if (s === undefined) {
      s = { labels: { method, route, status: String(status) }, status, count: 0, sum: 0, buckets: new Float64Array(BUCKETS.length + 1) };
      ofRoute.push(s);
      this.series.push(s);
    }
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    s.buckets[i]!++;
  }

  private reset(): void {
    this.series.length = 0;
    this.byRoute.clear();
  }

  counter() {
    const name = 'sheetd_http_requests_total';
    const help = 'HTTP requests answered';
    return {
      name, help, type: 'counter', aggregator: 'sum',
      get: async (): Promise<Exported> => ({
        name, help, type: 'counter', aggregator: 'sum',
        values: this.series.map((s) => ({ labels: s.labels, value: s.count })),
      }),
      reset: () => this.reset(),
    };
  }

  histogram() {
    const name = 'sheetd_http_request_duration_seconds';
    const help = 'Time from the request arriving to its answer being sent';
    return {
      name, help, type: 'histogram', aggregator: 'sum',
      get: async (): Promise<Exported> => {
        const values: Exported['values'] = [];
        for (const s of this.series) {
          let below = 0;
          for (let i = 0; i <= BUCKETS.length; i++) {
            below += s.buckets[i]!;
            values.push({ metricName: `${name}_bucket`, labels: { le: i < BUCKETS.length ? BUCKETS[i]! : '+Inf', ...s.labels }, value: below });
          }
          values.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
          values.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
        }
        return { name, help, type: 'histogram', aggregator: 'sum', values };
      },
      reset: () => this.reset(),
    };
  }
}
