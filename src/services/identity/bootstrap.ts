import fs from 'node:fs';
import path from 'node:path';
import { ensureDataDir, type Store } from '../../store/db.ts';
import { firstOrg, insertOrg } from '../../store/users.ts';
import { newId } from '../../ids.ts';
import { createUser } from './users.ts';
import { createToken } from './tokens.ts';
import type { EventAuthor } from '../log/events.ts';
import { clock } from '../../clock.ts';

export interface BootstrapResult {
  created: boolean;
  orgId: number;
  tokenFile?: string;
}

/**
 * First start on an empty database: the organization, its first system admin and a raw API
 * token of that admin, written to <dataDir>/admin-token (mode 0600). Later starts change nothing.
 */
export async function ensureBootstrap(store: Store, opts: { adminEmail: string; dataDir: string; orgName?: string }): Promise<BootstrapResult> {
  const existing = await firstOrg(store.db);
  if (existing) return { created: false, orgId: existing.id };
  let raw: string;
  let orgId: number;
  try {
    ({ raw, orgId } = await store.db.transaction().execute(async (tx) => {
      const orgIdNew = newId();
      const now = clock.now();
      await insertOrg(tx, { id: orgIdNew, name: opts.orgName ?? 'sheetd', plan: 'ENTERPRISE', created_at: now });
      const system: EventAuthor = { orgId: orgIdNew, userId: null, requestUserId: null, accessTokenName: null, source: 'SYSTEM' };
      const admin = await createUser(tx, system, orgIdNew, { email: opts.adminEmail, firstName: 'Admin', lastName: null, admin: true, licensedSheetCreator: true, groupAdmin: true, resourceViewer: true }, now);
      const tok = await createToken(tx, system, admin.id, { name: 'admin-token', scopes: 'ALL' }, now);
      return { raw: tok.raw, orgId: orgIdNew };
    }));
  } catch (e) {
    // Another process bootstrapped the same database at the same moment: theirs stands.
    const again = await firstOrg(store.db);
    if (again) return { created: false, orgId: again.id };
    throw e;
  }
  ensureDataDir(opts.dataDir);
  const tokenFile = path.join(opts.dataDir, 'admin-token');
  fs.writeFileSync(tokenFile, raw + '\n', { mode: 0o600 });
  fs.chmodSync(tokenFile, 0o600);
  return { created: true, orgId, tokenFile };
}
