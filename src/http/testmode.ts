import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, CATALOGUE, apiError, apiErrorWith } from '../errors.ts';
import { requireSystemAdmin } from '../services/identity/users.ts';
import {
  addFault, advance, atomically, changeClock, clearJournal, deleteFault, deleteSnapshot, listSnapshots, outbox, readClock, readJournal,
  record, resetAll, restoreSnapshot, saveSnapshot, takeFault, webhookDeliveries, JOURNAL_BODY_CAP,
  type Fault, type JournalEntry, type TestMode,
} from '../services/platform/testmode.ts';
import type { ClockState } from '../clock.ts';
import { paging, type Query } from './query.ts';
import { paginate } from './paging.ts';
import { success } from './present/envelope.ts';
import { clock } from '../clock.ts';

/**
 * Test mode over HTTP (docs/testing.md). Registered by the /2.0 plugin only when the operator
 * enabled test mode: otherwise none of this exists and /2.0/sheetd/test/... is 404/1006.
 */
export const TEST_PREFIX = '/sheetd/test';

const iso = (ms: number) => new Date(ms).toISOString();
const presentClock = (c: ClockState) => ({ now: iso(c.now), nowMs: c.now, frozen: c.frozen, offsetMs: c.offsetMs });
const presentFault = (f: Fault) => ({
  id: f.id, method: f.method, path: f.path, status: f.status, errorCode: f.errorCode, retryAfter: f.retryAfter,
  latencyMs: f.latencyMs, remaining: f.remaining, createdAt: iso(f.createdAt),
});
const presentEntry = (e: JournalEntry) => ({ ...e, time: iso(e.time) });

function apiPath(url: string): string {
  const p = url.split('?')[0] ?? '/';
  return p.startsWith('/2.0/') ? p.slice(4) : p === '/2.0' ? '/' : p;
}

const isControl = (req: FastifyRequest) => apiPath(req.url).startsWith(TEST_PREFIX + '/') || apiPath(req.url) === TEST_PREFIX;

function maskedHeaders(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    const s = Array.isArray(v) ? v.join(', ') : v;
    if (k === 'authorization') {
      const m = /^(\S+)\s+(\S+)$/.exec(s);
      out[k] = m ? `${m[1]} ****${m[2]!.length > 8 ? m[2]!.slice(-4) : ''}` : '****';
    } else if (k === 'cookie') {
      out[k] = '****';
    } else {
      out[k] = s;
    }
  }
  return out;
}

function bodyText(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return `<${body.length} bytes>`;
  try {
    return JSON.stringify(body);
  } catch {
    return '<unreadable body>';
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    testModeStart?: number;
    /** The (test mode) clock's time when the request arrived. */
    testModeTime?: number;
    testModeErrorCode?: number | null;
  }
}

/** Faults and the journal: hooks of the /2.0 plugin, added before authentication. */
export function installTestModeHooks(api: FastifyInstance, tm: TestMode): void {
  api.addHook('onRequest', async (req) => {
    req.testModeStart = performance.now();
    req.testModeTime = clock.now();
    if (isControl(req) || req.headers['sheetd-test-seed'] !== undefined) return;
    const f = takeFault(tm, req.method, apiPath(req.url));
    if (f === null) return;
    if (f.latencyMs > 0) await new Promise((r) => setTimeout(r, f.latencyMs));
    if (f.status === null || f.errorCode === null) return;
    const headers: Record<string, string> = f.retryAfter !== null ? { 'retry-after': String(f.retryAfter) } : {};
    const sheetId = sheetIdOfUrl(req.url);
    // 4004 has two messages in the catalogue: the busy sheet's where the path names one, else
    // the unexpected error's
    const message = f.errorCode === 4004 && sheetId === undefined
      ? 'An unexpected error has occurred. Please retry your request.'
      : apiErrorWith(f.errorCode, { args: f.errorCode === 4004 ? [sheetId] : [], headers }).message;
    throw new ApiError(f.errorCode, message, f.status, undefined, headers);
  });

  api.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode >= 400 && typeof payload === 'string') {
      try {
        const code = (JSON.parse(payload) as { errorCode?: unknown }).errorCode;
        req.testModeErrorCode = typeof code === 'number' ? code : null;
      } catch {
        req.testModeErrorCode = null;
      }
    }
    return payload;
  });

  api.addHook('onResponse', async (req, reply) => {
    if (isControl(req) || req.headers['sheetd-test-seed'] !== undefined) return;
    const text = bodyText(req.body);
    const start = req.testModeStart ?? performance.now();
    record(tm, {
      time: req.testModeTime ?? clock.now(),
      method: req.method,
      path: apiPath(req.url),
      query: { ...(req.query as Record<string, unknown> | undefined) },
      headers: maskedHeaders(req),
      body: text === null ? null : text.slice(0, JOURNAL_BODY_CAP),
      bodyTruncated: text !== null && text.length > JOURNAL_BODY_CAP,
      status: reply.statusCode,
      errorCode: req.testModeErrorCode ?? null,
      durationMs: Math.round(performance.now() - start),
    });
  });
}

function sheetIdOfUrl(url: string): string | undefined {
  return /\/sheets\/(\d+)/.exec(url)?.[1];
}

function optInt(q: Query, name: string): number | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw apiError(1018, JSON.stringify(v), name);
  return n;
}

function optString(q: Query, name: string): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw apiError(1018, JSON.stringify(v), name);
  return v;
}

function optTime(q: Query, name: string): number | undefined {
  const v = optString(q, name);
  if (v === undefined) return undefined;
  const t = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(t)) throw apiError(1018, JSON.stringify(v), name);
  return t;
}

/** The controls, under /2.0/sheetd/test/ (system admins only). */
export async function testModeRoutes(app: FastifyInstance): Promise<void> {
  const tm = app.ctx.testMode!;
  const admin = { config: { scope: null } };
  const withBody = { config: { scope: null, body: 'required' as const } };
  const P = TEST_PREFIX;

  app.post(`${P}/reset`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    await resetAll(tm);
    return success();
  });

  app.post(`${P}/seed`, withBody, async (req, reply) => {
    requireSystemAdmin(req.actor);
    try {
      return success(await atomically(tm, () => runSeed(app, req.headers.authorization!, req.body)));
    } catch (e) {
      if (e instanceof SeedError) return reply.code(e.status).send(e.body);
      throw e;
    }
  });

  app.get(`${P}/snapshots`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    return paginate((await listSnapshots(tm)).map((s) => ({ name: s.name, createdAt: iso(s.createdAt) })), paging(req.query as Query));
  });
  app.post(`${P}/snapshots`, withBody, async (req) => {
    requireSystemAdmin(req.actor);
    const s = await saveSnapshot(tm, req.body);
    return success({ name: s.name, createdAt: iso(s.createdAt) });
  });
  app.post(`${P}/snapshots/:name/restore`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    await restoreSnapshot(tm, (req.params as { name: string }).name);
    return success();
  });
  app.delete(`${P}/snapshots/:name`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    await deleteSnapshot(tm, (req.params as { name: string }).name);
    return success();
  });

  app.get(`${P}/clock`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    return presentClock(readClock());
  });
  app.put(`${P}/clock`, withBody, async (req) => {
    requireSystemAdmin(req.actor);
    return success(presentClock(changeClock(req.body)));
  });
  app.post(`${P}/clock/advance`, withBody, async (req) => {
    requireSystemAdmin(req.actor);
    return success(presentClock(await advance(tm, req.body)));
  });

  app.get(`${P}/faults`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    return paginate(tm.faults.map(presentFault), paging(req.query as Query));
  });
  app.post(`${P}/faults`, withBody, async (req) => {
    requireSystemAdmin(req.actor);
    return success(presentFault(addFault(tm, req.body, (c) => CATALOGUE[c]?.[0])));
  });
  app.delete(`${P}/faults`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    tm.faults = [];
    return success();
  });
  app.delete(`${P}/faults/:id`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    const raw = (req.params as { id: string }).id;
    if (!/^\d+$/.test(raw)) throw apiError(1006);
    deleteFault(tm, Number(raw));
    return success();
  });

  app.get(`${P}/journal`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    const q = req.query as Query;
    const method = optString(q, 'method');
    const path = optString(q, 'path');
    const status = optInt(q, 'status');
    const since = optTime(q, 'since');
    const rows = readJournal(tm, {
      ...(method !== undefined ? { method } : {}), ...(path !== undefined ? { path } : {}),
      ...(status !== undefined ? { status } : {}), ...(since !== undefined ? { since } : {}),
    });
    return paginate(rows.map(presentEntry), paging(q));
  });
  app.delete(`${P}/journal`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    clearJournal(tm);
    return success();
  });

  app.get(`${P}/outbox`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    return paginate(await outbox(tm), paging(req.query as Query));
  });

  app.get(`${P}/webhookdeliveries`, admin, async (req) => {
    requireSystemAdmin(req.actor);
    const q = req.query as Query;
    const webhookId = optInt(q, 'webhookId');
    const rows = await webhookDeliveries(tm, webhookId);
    return paginate(rows.map((d) => ({
      ...d, nextAttemptAt: iso(d.nextAttemptAt), createdAt: iso(d.createdAt), finishedAt: d.finishedAt === null ? null : iso(d.finishedAt),
      attempts: d.attempts.map((a) => ({ ...a, at: iso(a.at) })),
    })), paging(q));
  });
}

// ---- seed -------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

export class SeedError extends Error {
  constructor(readonly status: number, readonly body: Obj) {
    super('seed step failed');
  }
}

function list(f: Obj, name: string): Obj[] {
  const v = f[name];
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'object' || x === null || Array.isArray(x))) throw apiError(1031, JSON.stringify(v).slice(0, 100), name);
  return v as Obj[];
}

function keyOf(o: Obj, i: number, what: string): string {
  const k = o.key ?? (what === 'users' ? o.email : o.name);
  if (typeof k !== 'string' || k === '') throw apiError(1012, `${what}[${i}].key`);
  return k;
}

function without(o: Obj, ...names: string[]): Obj {
  const out = { ...o };
  for (const n of names) delete out[n];
  return out;
}

/**
 * Loads a fixture by calling the API in-process with the caller's token, in the order a client
 * would (users, groups, workspaces, folders, sheets with columns and rows, shares), so the
 * fixture gets exactly the API's checks and change events. Answers the ids by the fixture's own
 * keys. A failing step answers its error (with detail.step) after putting back the state from
 * before the seed.
 */
export async function runSeed(app: FastifyInstance, authorization: string, fixture: unknown): Promise<Obj> {
  if (typeof fixture !== 'object' || fixture === null || Array.isArray(fixture)) throw apiError(1008, 'expected a fixture object');
  const f = fixture as Obj;
  const allowed = ['users', 'groups', 'workspaces', 'folders', 'sheets', 'shares'];
  for (const k of Object.keys(f)) if (!allowed.includes(k)) throw apiError(1032, k);
  const ids = { users: {} as Obj, groups: {} as Obj, workspaces: {} as Obj, folders: {} as Obj, sheets: {} as Obj };
  const userIds: Record<string, number> = {};
  const groupIds: Record<string, number> = {};
  const folderIds: Record<string, number> = {};
  const workspaceIds: Record<string, number> = {};
  const sheetIds: Record<string, number> = {};
  let step = '';
  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown): Promise<Obj> => {
    const r = await app.inject({
      method, url: `/2.0${url}`,
      headers: { authorization, 'content-type': 'application/json', 'sheetd-test-seed': '1' },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
    const body = r.json<Obj>();
    if (r.statusCode >= 400) throw new SeedError(r.statusCode, { ...body, detail: { ...(body.detail as Obj | undefined), step } });
    return body;
  };
  const ref = (map: Record<string, number>, v: unknown, what: string): number => {
    if (typeof v !== 'string' || map[v] === undefined) throw apiError(1031, JSON.stringify(v), what);
    return map[v]!;
  };

  for (const [i, u] of list(f, 'users').entries()) {
    step = `users[${i}]`;
    const k = keyOf(u, i, 'users');
    const r = await call('POST', '/users', without(u, 'key'));
    userIds[k] = (r.result as Obj).id as number;
  }
  const emailOf = (v: unknown): string => {
    if (typeof v === 'string' && userIds[v] !== undefined) {
      const u = list(f, 'users').find((x, i) => keyOf(x, i, 'users') === v);
      return String(u?.email);
    }
    if (typeof v === 'string' && v.includes('@')) return v;
    throw apiError(1031, JSON.stringify(v), 'user');
  };
  for (const [i, g] of list(f, 'groups').entries()) {
    step = `groups[${i}]`;
    const k = keyOf(g, i, 'groups');
    const members = Array.isArray(g.members) ? g.members.map((m) => ({ email: emailOf(m) })) : [];
    const r = await call('POST', '/groups', { ...without(g, 'key', 'members'), members });
    groupIds[k] = (r.result as Obj).id as number;
  }
  for (const [i, w] of list(f, 'workspaces').entries()) {
    step = `workspaces[${i}]`;
    const r = await call('POST', '/workspaces', without(w, 'key'));
    workspaceIds[keyOf(w, i, 'workspaces')] = (r.result as Obj).id as number;
  }
  for (const [i, fo] of list(f, 'folders').entries()) {
    step = `folders[${i}]`;
    const where = fo.folder !== undefined ? `/folders/${ref(folderIds, fo.folder, 'folder')}/folders`
      : fo.workspace !== undefined ? `/workspaces/${ref(workspaceIds, fo.workspace, 'workspace')}/folders` : '/home/folders';
    const r = await call('POST', where, without(fo, 'key', 'folder', 'workspace'));
    folderIds[keyOf(fo, i, 'folders')] = (r.result as Obj).id as number;
  }
  for (const [i, s] of list(f, 'sheets').entries()) {
    step = `sheets[${i}]`;
    const k = keyOf(s, i, 'sheets');
    const where = s.folder !== undefined ? `/folders/${ref(folderIds, s.folder, 'folder')}/sheets`
      : s.workspace !== undefined ? `/workspaces/${ref(workspaceIds, s.workspace, 'workspace')}/sheets` : '/sheets';
    const cols = Array.isArray(s.columns) ? (s.columns as Obj[]) : [];
    const r = await call('POST', where, { ...without(s, 'key', 'folder', 'workspace', 'rows'), columns: cols.map((c) => without(c, 'key')) });
    const res = r.result as { id: number; columns: Array<{ id: number; title: string }> };
    sheetIds[k] = res.id;
    const columnIds: Record<string, number> = {};
    res.columns.forEach((c, ci) => {
      columnIds[c.title] = c.id;
      const ck = cols[ci]?.key;
      if (typeof ck === 'string') columnIds[ck] = c.id;
    });
    const rows = Array.isArray(s.rows) ? (s.rows as Obj[]) : [];
    const rowIds: Record<string, number> = {};
    if (rows.length > 0) {
      step = `sheets[${i}].rows`;
      const body = rows.map((row) => {
        const cells = typeof row.cells === 'object' && row.cells !== null && !Array.isArray(row.cells)
          ? Object.entries(row.cells as Obj).map(([col, value]) => ({ columnId: ref(columnIds, col, 'column'), value }))
          : row.cells;
        return { toBottom: true, ...without(row, 'key', 'cells'), cells };
      });
      const added = await call('POST', `/sheets/${res.id}/rows`, body);
      (added.result as Array<{ id: number }>).forEach((a, ri) => {
        const rk = rows[ri]?.key;
        rowIds[typeof rk === 'string' ? rk : String(ri)] = a.id;
      });
    }
    ids.sheets[k] = { id: res.id, columns: columnIds, rows: rowIds };
  }
  for (const [i, sh] of list(f, 'shares').entries()) {
    step = `shares[${i}]`;
    const target = sh.sheet !== undefined ? `/sheets/${ref(sheetIds, sh.sheet, 'sheet')}`
      : sh.workspace !== undefined ? `/workspaces/${ref(workspaceIds, sh.workspace, 'workspace')}`
        : sh.folder !== undefined ? `/folders/${ref(folderIds, sh.folder, 'folder')}` : null;
    if (target === null) throw apiError(1012, 'sheet, workspace or folder');
    const who = sh.group !== undefined ? { groupId: ref(groupIds, sh.group, 'group') } : { email: emailOf(sh.user ?? sh.email) };
    await call('POST', `${target}/shares?sendEmail=false`, { ...who, ...without(sh, 'sheet', 'workspace', 'folder', 'group', 'user', 'email') });
  }
  ids.users = userIds;
  ids.groups = groupIds;
  ids.workspaces = workspaceIds;
  ids.folders = folderIds;
  return ids;
}
