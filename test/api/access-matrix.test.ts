import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client, type Res } from '../helpers/http.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';
import type { Scope } from '../../src/services/access/scopes.ts';

// Every operation of containers and sharing against each access level (and none): allowed, or
// refused with 1004 (some access, not enough) or 1006 (no access: the object is not revealed).
let t: TestServer;
let admin: Client;

const LEVELS = ['VIEWER', 'COMMENTER', 'EDITOR', 'EDITOR_SHARE', 'ADMIN', 'OWNER'] as const;
type Level = (typeof LEVELS)[number];
const users = new Map<Level | 'NONE', { email: string; api: Client }>();
let owner: Client;

async function tokenOf(email: string, scopes?: Scope[]): Promise<string> {
  const db = t.server.store.db;
  const u = await findUserByEmail(db, email);
  assert.ok(u);
  return (await createToken(db, { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' }, u.id, { name: 'matrix', ...(scopes ? { scopes } : {}) })).raw;
}

before(async () => {
  // many requests per token: the rate limit is not what this file tests
  t = await startSuiteServer({ SHEETD_RATE_LIMIT: '1000000' });
  admin = client(t.base, t.adminToken);
  for (const l of [...LEVELS, 'NONE'] as const) {
    const email = `${l.toLowerCase()}@matrix.example.org`;
    const r = await admin.post('/users', { email, licensedSheetCreator: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    users.set(l, { email, api: client(t.base, await tokenOf(email)) });
  }
  owner = users.get('OWNER')!.api;
});
after(() => t.close());

const COLS = [{ title: 'A', type: 'TEXT_NUMBER', primary: true }];

/** A fresh sheet of the OWNER user, shared to the user of `level` (directly or via a workspace). */
async function sheetFor(level: Level | 'NONE', via: 'direct' | 'workspace'): Promise<{ sheetId: number; workspaceId?: number; otherShareId: string }> {
  let path = '/sheets';
  let workspaceId: number | undefined;
  if (via === 'workspace') {
    workspaceId = (await owner.post('/workspaces', { name: 'M' })).body.result.id;
    path = `/workspaces/${workspaceId}/sheets`;
  }
  const s = (await owner.post(path, { name: 'Matrix', columns: COLS })).body.result;
  const target = via === 'workspace' ? `/workspaces/${workspaceId}/shares` : `/sheets/${s.id}/shares`;
  if (level !== 'NONE' && level !== 'OWNER') {
    const r = await owner.post(`${target}?accessApiLevel=1`, { email: users.get(level)!.email, accessLevel: level });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const other = (await owner.post(`/sheets/${s.id}/shares`, { email: `other${Math.random().toString(36).slice(2)}@example.org`, accessLevel: 'VIEWER' })).body.result;
  return { sheetId: s.id, ...(workspaceId !== undefined ? { workspaceId } : {}), otherShareId: other.id };
}

async function workspaceFor(level: Level | 'NONE'): Promise<{ wsId: number; folderId: number; otherShareId: string }> {
  const ws = (await owner.post('/workspaces', { name: 'MW' })).body.result;
  const folder = (await owner.post(`/workspaces/${ws.id}/folders`, { name: 'MF' })).body.result;
  if (level !== 'NONE' && level !== 'OWNER') {
    const r = await owner.post(`/workspaces/${ws.id}/shares?accessApiLevel=1`, { email: users.get(level)!.email, accessLevel: level });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const other = (await owner.post(`/workspaces/${ws.id}/shares`, { email: `wother${Math.random().toString(36).slice(2)}@example.org`, accessLevel: 'VIEWER' })).body.result;
  return { wsId: ws.id, folderId: folder.id, otherShareId: other.id };
}

function expectOutcome(res: Res, level: Level | 'NONE', least: Level, what: string) {
  const ctx = `${what} as ${level}: ${res.status} ${res.text}`;
  if (level === 'NONE') {
    assert.equal(res.status, 404, ctx);
    assert.equal(res.body.errorCode, 1006, ctx);
  } else if (LEVELS.indexOf(level) >= LEVELS.indexOf(least)) {
    assert.equal(res.status, 200, ctx);
  } else {
    assert.equal(res.status, 403, ctx);
    assert.equal(res.body.errorCode, 1004, ctx);
  }
}

const allowedFor = (level: Level | 'NONE', least: Level) => level !== 'NONE' && LEVELS.indexOf(level) >= LEVELS.indexOf(least);

interface SheetOp {
  name: string;
  least: Level;
  run(api: Client, f: { sheetId: number; otherShareId: string }): Promise<Res>;
  /** What the owner sees afterwards when the call was refused or allowed. */
  check?(f: { sheetId: number; otherShareId: string }, allowed: boolean): Promise<void>;
}

const sheetOps: SheetOp[] = [
  { name: 'GET /sheets/{id}/version', least: 'VIEWER', run: (a, f) => a.get(`/sheets/${f.sheetId}/version`) },
  { name: 'GET /sheets/{id}/shares', least: 'VIEWER', run: (a, f) => a.get(`/sheets/${f.sheetId}/shares`) },
  { name: 'GET /sheets/{id}/shares/{shareId}', least: 'VIEWER', run: (a, f) => a.get(`/sheets/${f.sheetId}/shares/${f.otherShareId}`) },
  { name: 'PUT /sheets/{id} userSettings', least: 'VIEWER', run: (a, f) => a.put(`/sheets/${f.sheetId}`, { userSettings: { criticalPathEnabled: true } }) },
  {
    name: 'POST /sheets/{id}/copy', least: 'VIEWER', run: (a, f) => a.post(`/sheets/${f.sheetId}/copy`, { destinationType: 'home', newName: 'Mine' }),
  },
  {
    name: 'POST /sheets/{id}/shares', least: 'EDITOR_SHARE',
    run: (a, f) => a.post(`/sheets/${f.sheetId}/shares`, { email: 'granted@example.org', accessLevel: 'VIEWER' }),
    async check(f, allowed) {
      const emails = (await owner.get(`/sheets/${f.sheetId}/shares`)).body.data.map((s: { email: string }) => s.email);
      assert.equal(emails.includes('granted@example.org'), allowed);
    },
  },
  {
    name: 'PUT /sheets/{id}/shares/{shareId}', least: 'EDITOR_SHARE',
    run: (a, f) => a.put(`/sheets/${f.sheetId}/shares/${f.otherShareId}`, { accessLevel: 'EDITOR' }),
    async check(f, allowed) {
      assert.equal((await owner.get(`/sheets/${f.sheetId}/shares/${f.otherShareId}`)).body.accessLevel, allowed ? 'EDITOR' : 'VIEWER');
    },
  },
  {
    name: 'DELETE /sheets/{id}/shares/{shareId}', least: 'EDITOR_SHARE',
    run: (a, f) => a.del(`/sheets/${f.sheetId}/shares/${f.otherShareId}`),
    async check(f, allowed) {
      assert.equal((await owner.get(`/sheets/${f.sheetId}/shares/${f.otherShareId}`)).status, allowed ? 404 : 200);
    },
  },
  {
    name: 'PUT /sheets/{id} name', least: 'ADMIN', run: (a, f) => a.put(`/sheets/${f.sheetId}`, { name: 'Renamed' }),
    async check(f, allowed) {
      const s = (await owner.get('/sheets?includeAll=true')).body.data.find((x: { id: number }) => x.id === f.sheetId);
      assert.equal(s.name, allowed ? 'Renamed' : 'Matrix');
    },
  },
  {
    name: 'POST /sheets/{id}/move', least: 'ADMIN',
    run: async (a, f) => {
      const folder = (await a.post('/home/folders', { name: 'Mine' })).body.result;
      return a.post(`/sheets/${f.sheetId}/move`, { destinationType: 'folder', destinationId: folder.id });
    },
  },
  {
    name: 'DELETE /sheets/{id}', least: 'OWNER', run: (a, f) => a.del(`/sheets/${f.sheetId}`),
    async check(f, allowed) {
      assert.equal((await owner.get(`/sheets/${f.sheetId}/version`)).status, allowed ? 404 : 200);
    },
  },
];

for (const via of ['direct', 'workspace'] as const) {
  test(`sheet operations against each level (${via} grant)`, async () => {
    for (const op of sheetOps) {
      for (const level of [...LEVELS, 'NONE'] as const) {
        if (via === 'workspace' && op.name === 'POST /sheets/{id}/move' && level !== 'NONE') continue; // covered below
        const f = await sheetFor(level, via);
        const res = await op.run(users.get(level)!.api, f);
        expectOutcome(res, level, op.least, `${op.name} (${via})`);
        if (op.check) await op.check(f, allowedFor(level, op.least));
      }
    }
  });
}

interface WsOp {
  name: string;
  least: Level;
  run(api: Client, f: { wsId: number; folderId: number; otherShareId: string }): Promise<Res>;
  check?(f: { wsId: number; folderId: number; otherShareId: string }, allowed: boolean): Promise<void>;
}

const wsOps: WsOp[] = [
  { name: 'GET /workspaces/{id}', least: 'VIEWER', run: (a, f) => a.get(`/workspaces/${f.wsId}`) },
  { name: 'GET /workspaces/{id}/folders', least: 'VIEWER', run: (a, f) => a.get(`/workspaces/${f.wsId}/folders`) },
  { name: 'GET /workspaces/{id}/shares', least: 'VIEWER', run: (a, f) => a.get(`/workspaces/${f.wsId}/shares`) },
  { name: 'GET /folders/{id}', least: 'VIEWER', run: (a, f) => a.get(`/folders/${f.folderId}`) },
  { name: 'GET /folders/{id}/folders', least: 'VIEWER', run: (a, f) => a.get(`/folders/${f.folderId}/folders`) },
  { name: 'POST /workspaces/{id}/copy', least: 'VIEWER', run: (a, f) => a.post(`/workspaces/${f.wsId}/copy`, { newName: 'Copy' }) },
  { name: 'POST /folders/{id}/copy', least: 'VIEWER', run: (a, f) => a.post(`/folders/${f.folderId}/copy`, { destinationType: 'home', newName: 'Copy' }) },
  {
    name: 'POST /workspaces/{id}/shares', least: 'EDITOR_SHARE', run: (a, f) => a.post(`/workspaces/${f.wsId}/shares`, { email: 'wgranted@example.org', accessLevel: 'VIEWER' }),
    async check(f, allowed) {
      const emails = (await owner.get(`/workspaces/${f.wsId}/shares`)).body.data.map((s: { email: string }) => s.email);
      assert.equal(emails.includes('wgranted@example.org'), allowed);
    },
  },
  { name: 'PUT /workspaces/{id}/shares/{shareId}', least: 'EDITOR_SHARE', run: (a, f) => a.put(`/workspaces/${f.wsId}/shares/${f.otherShareId}`, { accessLevel: 'EDITOR' }) },
  { name: 'DELETE /workspaces/{id}/shares/{shareId}', least: 'EDITOR_SHARE', run: (a, f) => a.del(`/workspaces/${f.wsId}/shares/${f.otherShareId}`) },
  {
    name: 'PUT /workspaces/{id}', least: 'ADMIN', run: (a, f) => a.put(`/workspaces/${f.wsId}`, { name: 'Renamed' }),
    async check(f, allowed) {
      assert.equal((await owner.get(`/workspaces/${f.wsId}`)).body.name, allowed ? 'Renamed' : 'MW');
    },
  },
  {
    name: 'POST /workspaces/{id}/folders', least: 'ADMIN', run: (a, f) => a.post(`/workspaces/${f.wsId}/folders`, { name: 'New' }),
    async check(f, allowed) {
      assert.equal((await owner.get(`/workspaces/${f.wsId}/folders`)).body.totalCount, allowed ? 2 : 1);
    },
  },
  {
    name: 'POST /workspaces/{id}/sheets', least: 'ADMIN', run: (a, f) => a.post(`/workspaces/${f.wsId}/sheets`, { name: 'New', columns: COLS }),
    async check(f, allowed) {
      assert.equal((await owner.get(`/workspaces/${f.wsId}`)).body.sheets.length, allowed ? 1 : 0);
    },
  },
  { name: 'POST /folders/{id}/sheets', least: 'ADMIN', run: (a, f) => a.post(`/folders/${f.folderId}/sheets`, { name: 'New', columns: COLS }) },
  { name: 'POST /folders/{id}/folders', least: 'ADMIN', run: (a, f) => a.post(`/folders/${f.folderId}/folders`, { name: 'New' }) },
  { name: 'PUT /folders/{id}', least: 'ADMIN', run: (a, f) => a.put(`/folders/${f.folderId}`, { name: 'New' }) },
  { name: 'POST /folders/{id}/move', least: 'ADMIN', run: (a, f) => a.post(`/folders/${f.folderId}/move`, { destinationType: 'workspace', destinationId: f.wsId }) },
  {
    name: 'DELETE /folders/{id}', least: 'ADMIN', run: (a, f) => a.del(`/folders/${f.folderId}`),
    async check(f, allowed) {
      assert.equal((await owner.get(`/folders/${f.folderId}`)).status, allowed ? 404 : 200);
    },
  },
  {
    name: 'DELETE /workspaces/{id}', least: 'OWNER', run: (a, f) => a.del(`/workspaces/${f.wsId}`),
    async check(f, allowed) {
      assert.equal((await owner.get(`/workspaces/${f.wsId}`)).status, allowed ? 404 : 200);
    },
  },
];

test('workspace and workspace-folder operations against each level', async () => {
  for (const op of wsOps) {
    for (const level of [...LEVELS, 'NONE'] as const) {
      const f = await workspaceFor(level);
      const res = await op.run(users.get(level)!.api, f);
      expectOutcome(res, level, op.least, op.name);
      if (op.check) await op.check(f, allowedFor(level, op.least));
    }
  }
});

test('home folders are their owner\'s alone', async () => {
  const f = (await owner.post('/home/folders', { name: 'Private' })).body.result;
  for (const level of ['VIEWER', 'ADMIN', 'NONE'] as const) {
    const api = users.get(level)!.api;
    assert.equal((await api.get(`/folders/${f.id}`)).body.errorCode, 1006);
    assert.equal((await api.put(`/folders/${f.id}`, { name: 'x' })).body.errorCode, 1006);
    assert.equal((await api.post(`/folders/${f.id}/sheets`, { name: 'x', columns: COLS })).body.errorCode, 1006);
    assert.equal((await api.del(`/folders/${f.id}`)).body.errorCode, 1006);
  }
  assert.equal((await owner.get(`/folders/${f.id}`)).body.name, 'Private');
});

test('OAuth scopes are checked before access levels and never widen them', async () => {
  const ownerEmail = users.get('OWNER')!.email;
  const f = await sheetFor('VIEWER', 'direct');
  // the owner with a read-only token cannot delete, rename or share
  const readOnly = client(t.base, await tokenOf(ownerEmail, ['READ_SHEETS']));
  assert.equal((await readOnly.get(`/sheets/${f.sheetId}/version`)).status, 200);
  for (const res of [
    await readOnly.del(`/sheets/${f.sheetId}`),
    await readOnly.put(`/sheets/${f.sheetId}`, { name: 'x' }),
    await readOnly.post(`/sheets/${f.sheetId}/shares`, { email: 'z@example.org', accessLevel: 'VIEWER' }),
    await readOnly.post('/workspaces', { name: 'x' }),
    await readOnly.post('/sheets', { name: 'x', columns: COLS }),
  ]) {
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.errorCode, 1004);
  }
  // a missing scope is refused before access: even an unknown sheet answers 1004
  assert.equal((await readOnly.del('/sheets/1234567890123')).body.errorCode, 1004);
  assert.equal((await owner.get(`/sheets/${f.sheetId}/version`)).status, 200);
  // a VIEWER with every scope still cannot rename
  const viewerAll = client(t.base, await tokenOf(users.get('VIEWER')!.email, ['ADMIN_SHEETS', 'READ_SHEETS', 'DELETE_SHEETS', 'SHARE_SHEETS']));
  assert.equal((await viewerAll.put(`/sheets/${f.sheetId}`, { name: 'x' })).body.errorCode, 1004);
  assert.equal((await viewerAll.del(`/sheets/${f.sheetId}`)).body.errorCode, 1004);
});
