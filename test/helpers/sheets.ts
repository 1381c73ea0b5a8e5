import assert from 'node:assert/strict';
import type { Client } from './http.ts';
import type { TestServer } from './server.ts';
import { createToken } from '../../src/services/identity/tokens.ts';
import { findUserByEmail } from '../../src/store/users.ts';

export interface Col { id: number; title: string; type: string; index: number; primary?: boolean }

/** Creates a sheet in the caller's home from column specs; returns its id and columns by title. */
export async function makeSheet(api: Client, name: string, columns: Array<Record<string, unknown>>) {
  const res = await api.post('/sheets', { name, columns });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const cols = res.body.result.columns as Col[];
  const byTitle: Record<string, Col> = {};
  for (const c of cols) byTitle[c.title] = c;
  return { id: res.body.result.id as number, columns: cols, col: byTitle };
}

/** A user of the organization with a raw token (all scopes unless given). */
export async function makeUser(t: TestServer, api: Client, email: string, scopes?: Parameters<typeof createToken>[3]['scopes']): Promise<{ id: number; token: string }> {
  const res = await api.post('/users', { email, firstName: email.split('@')[0], lastName: 'Tester', licensedSheetCreator: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const u = await findUserByEmail(t.server.store.db, email);
  assert.ok(u);
  const tok = await createToken(t.server.store.db, { orgId: u.org_id, userId: null, requestUserId: null, accessTokenName: null, source: 'TEST' }, u.id, { name: 'test', scopes });
  return { id: u.id, token: tok.raw };
}

export function cellOf(row: { cells: Array<{ columnId: number }> }, columnId: number): Record<string, unknown> {
  const c = row.cells.find((x) => x.columnId === columnId);
  assert.ok(c, `no cell for column ${columnId}`);
  return c as Record<string, unknown>;
}

export { assertError } from './http.ts';
