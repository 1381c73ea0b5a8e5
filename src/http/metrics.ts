import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Store } from '../store/db.ts';
import { operationalGauges } from '../services/platform/metrics.ts';

/**
 * Prometheus metrics (prom-client): requests and their latency by route, the
 * job queue and the database pool, and the process's own figures. A registry per app, so that
 * several servers in one process (tests) count apart. The counting hook goes on the instance
 * given (the root, so every request counts); the returned handler serves GET /metrics.
 */
export function installMetrics(app: FastifyInstance, store: Store): (req: FastifyRequest, reply: FastifyReply) => Promise<string> {
  const register = new Registry();
  collectDefaultMetrics({ register, prefix: 'sheetd_' });
  // the route pattern, not the URL: ids would make a series per object
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'sheetd_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [register] });
  const duration = new Histogram({
    name: 'sheetd_http_request_duration_seconds',
    help: 'Time from the request arriving to its answer being sent',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [register],
  });
  const jobs = new Gauge({ name: 'sheetd_jobs', help: 'Background jobs by state (due: waiting for a worker; scheduled: later or running; dead: gave up)', labelNames: ['state'], registers: [register] });
  const pool = new Gauge({ name: 'sheetd_db_pool_connections', help: 'PostgreSQL pool connections by state (absent on SQLite)', labelNames: ['state'], registers: [register] });
  const cachedModels = new Gauge({ name: 'sheetd_sheet_cache_models', help: 'Sheet models this process holds in memory', registers: [register] });
  // counted by the sheet cache; the counter catches up at each scrape
  const droppedAsOlder = new Counter({ name: 'sheetd_sheet_cache_invalidated_total', help: 'Cached sheet models dropped because another process announced a newer version (Redis)', registers: [register] });
  let dropped = 0;

  app.addHook('onResponse', (req, reply, done) => {
    const settings = req.routeSettings;
    const labels = { method: req.method, route: (settings ? settings.url : req.routeOptions.url) ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  return async (_req, reply) => {
    const g = await operationalGauges(store);
    for (const [state, n] of Object.entries(g.jobs)) jobs.set({ state }, n);
    if (g.pool) for (const [state, n] of Object.entries(g.pool)) pool.set({ state }, n);
    cachedModels.set(g.sheetCache.models);
    droppedAsOlder.inc(g.sheetCache.droppedAsOlder - dropped);
    dropped = g.sheetCache.droppedAsOlder;
    reply.type(register.contentType);
    return register.metrics();
  };
}
