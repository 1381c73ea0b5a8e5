import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  changeWebhook, createWebhook, readDeliveries, readWebhook, readWebhooks, removeWebhook, replayDelivery, resetSharedSecret,
} from '../../services/outbound/webhooks.ts';
import { indexResult } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { delivery, webhook } from '../present/webhooks.ts';
import { paging, pathId, type Query } from '../query.ts';

type WebhookReq = FastifyRequest<{ Params: { webhookId: string } }>;
type DeliveryReq = FastifyRequest<{ Params: { webhookId: string; deliveryId: string } }>;

/** Webhooks (spec 4.2, scope ADMIN_WEBHOOKS) and sheetd's delivery log of each. */
export async function webhookRoutes(app: FastifyInstance): Promise<void> {
  const svc = () => ({ store: app.ctx.store, callbacks: app.ctx.callbacks });
  const db = () => app.ctx.store.db;
  const cfg = { scope: 'ADMIN_WEBHOOKS' as const };

  app.get('/webhooks', { config: cfg }, async (req) => {
    const p = paging(req.query as Query);
    const r = await readWebhooks(db(), req.actor, p);
    return indexResult(r.total, p, r.rows.map((h) => webhook(h, req.ro)));
  });

  app.post('/webhooks', { config: { ...cfg, body: 'required' } }, async (req) => {
    const h = await createWebhook(svc(), req.actor, req.body);
    return success(webhook(h, req.ro));
  });

  app.get('/webhooks/:webhookId', { config: cfg }, async (req: WebhookReq) => {
    return webhook(await readWebhook(db(), req.actor, pathId(req.params.webhookId)), req.ro);
  });

  app.put('/webhooks/:webhookId', { config: { ...cfg, body: 'required' } }, async (req: WebhookReq) => {
    const h = await changeWebhook(svc(), req.actor, pathId(req.params.webhookId), req.body);
    return success(webhook(h, req.ro));
  });

  app.delete('/webhooks/:webhookId', { config: cfg }, async (req: WebhookReq) => {
    await removeWebhook(app.ctx.store, req.actor, pathId(req.params.webhookId));
    return success();
  });

  const reset = async (req: WebhookReq) => {
    const sharedSecret = await resetSharedSecret(app.ctx.store, req.actor, pathId(req.params.webhookId));
    // the reference's Result; the Java SDK reads sharedSecret beside it, at the top
    return { ...success({ sharedSecret }), sharedSecret };
  };
  // the spec and the SDKs spell it resetsharedsecret, the reference resetSharedSecret
  for (const name of ['resetSharedSecret', 'resetsharedsecret']) app.post(`/webhooks/:webhookId/${name}`, { config: cfg }, reset);

  // sheetd extension: the delivery log and replay
  app.get('/sheetd/webhooks/:webhookId/deliveries', { config: cfg }, async (req: WebhookReq) => {
    const p = paging(req.query as Query);
    const r = await readDeliveries(db(), req.actor, pathId(req.params.webhookId), p);
    return indexResult(r.total, p, r.rows.map((d) => delivery(d, req.ro)));
  });

  app.post('/sheetd/webhooks/:webhookId/deliveries/:deliveryId/replay', { config: cfg }, async (req: DeliveryReq) => {
    await replayDelivery(app.ctx.store, req.actor, pathId(req.params.webhookId), pathId(req.params.deliveryId));
    return success();
  });
}
