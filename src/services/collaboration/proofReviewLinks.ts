import type { Queryable } from '../../store/db.ts';
import { hasServerSignature, serverSignature } from '../identity/secrets.ts';

/**
 * The tokens of reviewers' links to a proof request (signed with the server's key, naming the
 * request and the address): made by Create Proof Request (services/collaboration/proofs.ts), checked by the
 * review page (services/collaboration/proofReviews.ts).
 */

const payload = (requestId: number, email: string) => `proofreview.${requestId}.${email}`;

/** The token of a reviewer's link: `<request id>.<address, base64url>.<signature>`. */
export async function reviewToken(db: Queryable, requestId: number, email: string): Promise<string> {
  return `${requestId}.${Buffer.from(email, 'utf8').toString('base64url')}.${await serverSignature(db, 'proof-review', payload(requestId, email))}`;
}

/** Whether `signature` is the one of this request's and address's token. */
export function isReviewSignature(db: Queryable, requestId: number, email: string, signature: string): Promise<boolean> {
  return hasServerSignature(db, 'proof-review', payload(requestId, email), signature);
}
