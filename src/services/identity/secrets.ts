import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../../store/db.ts';
import { serverSecret } from '../../store/attachments.ts';

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

/**
 * The signature of `payload` with the server key `name`: HMAC-SHA256, base64url (43 characters).
 * Links and URLs carry it (temporary attachment and image URLs, approval, update request and
 * proof review links) so that the server knows them again without storing them.
 */
export async function serverSignature(db: Queryable, name: string, payload: string): Promise<string> {
  return createHmac('sha256', await serverKey(db, name)).update(payload).digest('base64url');
}

/** Whether `signature` is serverSignature(db, name, payload), compared in constant time. */
export async function hasServerSignature(db: Queryable, name: string, payload: string, signature: string): Promise<boolean> {
  const expected = Buffer.from(await serverSignature(db, name, payload));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
