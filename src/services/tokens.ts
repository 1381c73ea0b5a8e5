import { createHash } from 'node:crypto';
import type { Queryable } from '../store/db.ts';
import { insertToken } from '../store/tokens.ts';
import { newId, newRawToken } from '../ids.ts';
import { type Scope } from './scopes.ts';
import { recordEvents, type EventAuthor } from './events.ts';

export function hashToken(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

export interface NewToken {
  id: number;
  raw: string;
}

/**
 * Creates an access token for a user. Raw tokens (kind RAW) carry every scope unless a list
 * is given; only the hash is stored, the raw value is returned once.
 */
export async function createToken(
  db: Queryable,
  author: EventAuthor,
  userId: number,
  opts: { name: string; scopes?: Scope[] | 'ALL'; kind?: 'RAW' | 'OAUTH'; expiresAt?: number | null },
  now = Date.now(),
): Promise<NewToken> {
  const raw = newRawToken();
  const id = newId();
  const scopes = opts.scopes === undefined || opts.scopes === 'ALL' ? '*' : opts.scopes.join(' ');
  await insertToken(db, {
    id,
    user_id: userId,
    name: opts.name,
    token_hash: hashToken(raw),
    kind: opts.kind ?? 'RAW',
    scopes,
    expires_at: opts.expiresAt ?? null,
    revoked_at: null,
    created_at: now,
  });
  await recordEvents(db, author, [{ objectType: 'ACCESS_TOKEN', action: 'CREATE', objectId: id, details: { name: opts.name, userId } }], now);
  return { id, raw };
}
