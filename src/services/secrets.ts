import { randomBytes } from 'node:crypto';
import type { Queryable } from '../store/db.ts';
import { serverSecret } from '../store/attachments.ts';

// per database handle: a process may serve more than one database (tests do)
const keys = new WeakMap<Queryable, Map<string, Buffer>>();

/**
 * A 32-byte key of this server by name (signing temporary URLs, approval links, deriving client
 * secrets): made once, in the database, so every process shares it; cached per database handle.
 */
export async function serverKey(db: Queryable, name: string): Promise<Buffer> {
  let byName = keys.get(db);
  const cached = byName?.get(name);
  if (cached) return cached;
  const key = Buffer.from(await serverSecret(db, name, () => randomBytes(32).toString('base64')), 'base64');
  if (!byName) keys.set(db, (byName = new Map()));
  byName.set(name, key);
  return key;
}
