import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError } from '../../errors.ts';
import { pathId } from '../query.ts';

type WebhookReq = FastifyRequest<{ Params: { webhookId: string } }>;

/**
 * Webhooks. None can exist yet, so every webhook id is unknown (1006) once the token and its
 * ADMIN_WEBHOOKS scope are checked; the webhooks issue fills these in.
 */
export async function webhookRoutes(app: FastifyInstance): Promise<void> {
  const resetSharedSecret = async (req: WebhookReq) => {
    pathId(req.params.webhookId);
    throw apiError(1006);
  };
  // the reference spells it resetSharedSecret, the npm and Python SDKs resetsharedsecret
  for (const name of ['resetSharedSecret', 'resetsharedsecret']) {
    app.post(`/webhooks/:webhookId/${name}`, { config: { scope: 'ADMIN_WEBHOOKS' } }, resetSharedSecret);
  }
}
