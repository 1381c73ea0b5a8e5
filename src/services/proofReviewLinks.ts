import { createHmac } from 'node:crypto';
import type { Queryable } from '../store/db.ts';
import { serverKey } from './secrets.ts';

/**
 * The tokens of reviewers' links to a proof request (signed with the server's key, naming the
 * request and the address): made by Create Proof Request (services/proofs.ts), checked by the
 * review page (services/proofReviews.ts).
 */

function reviewSecret(db: Queryable): Promise<Buffer> {
  return serverKey(db, 'proof-review');
}

/** The signature part of a reviewer's token. */
export async function reviewMac(db: Queryable, requestId: number, email: string): Promise<string> {
  return createHmac('sha256', await reviewSecret(db)).update(`proofreview.${requestId}.${email}`).digest('base64url');
}

/** The token of a reviewer's link: `<request id>.<address, base64url>.<signature>`. */
export async function reviewToken(db: Queryable, requestId: number, email: string): Promise<string> {
  return `${requestId}.${Buffer.from(email, 'utf8').toString('base64url')}.${await reviewMac(db, requestId, email)}`;
}
