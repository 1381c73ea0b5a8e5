import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pageRefusal } from './refusal.ts';
import { decideProofReview, readProofReview, reviewedFile, type ProofReviewView } from '../services/collaboration/proofReviews.ts';
import { dispositionOf } from '../http/download.ts';
import { page } from './page.ts';

/**
 * The page of a proof reviewer's link (mailed by Create Proof Request): no account and no
 * session, the signed link is the permission. GET shows the proof's current version and the
 * reviewer's decision and changes nothing (mail scanners open links); the form posts back with
 * a CSRF token and records APPROVED or REJECTED (services/collaboration/proofReviews.ts).
 */
export async function proofReviewPages(web: FastifyInstance): Promise<void> {
  const { store, blobs } = web.ctx;
  const show = (req: FastifyRequest, reply: FastifyReply, token: string, review: ProofReviewView, extra: Record<string, unknown> = {}, status = 200) =>
    page(req, reply, 'proof-review.eta', { title: `Proof review: ${review.proofName}`, review, token, ...extra }, status);

  web.get<{ Params: { token: string } }>('/proofreviews/:token', async (req, reply) => show(req, reply, req.params.token, await readProofReview(store.db, req.params.token)));

  web.post<{ Params: { token: string } }>('/proofreviews/:token', { preHandler: web.csrfProtection }, async (req, reply) => {
    const token = req.params.token;
    const decision = (req.body as Record<string, unknown> | undefined)?.decision;
    try {
      const review = await decideProofReview(store, token, decision);
      return show(req, reply, token, review, { done: true });
    } catch (e) {
      // a review that closed since the page was shown: the page again, saying so
      if (pageRefusal(e)?.errorCode !== 1167) throw e;
      return show(req, reply, token, await readProofReview(store.db, token), {}, 400);
    }
  });

  // a file of the version under review: shown in the page (images, video) or opened on its own
  // (documents); `download=true` as a download, when the request allows it
  web.get<{ Params: { token: string; attachmentId: string }; Querystring: Record<string, string | undefined> }>('/proofreviews/:token/files/:attachmentId', async (req, reply) => {
    const id = Number(req.params.attachmentId);
    const download = req.query.download === 'true';
    const f = await reviewedFile(store.db, blobs, req.params.token, Number.isSafeInteger(id) ? id : -1, download);
    return reply
      .header('content-type', f.mimeType)
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', dispositionOf(f.fileName, download ? 'attachment' : 'inline'))
      .header('content-length', f.size)
      .send(f.stream);
  });
}
