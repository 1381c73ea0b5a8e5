import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pageRefusal } from './refusal.ts';
import { readUpdateForm, submitUpdateForm, type UpdateFormView } from '../services/collaboration/updateRequests.ts';
import { page } from './page.ts';

/**
 * The page of an update request's link: no account and no session, the signed link is the
 * permission. GET shows the rows and changes nothing (mail scanners open links); the form posts
 * back with a CSRF token and writes the cells (services/collaboration/updateRequests.ts submitUpdateForm).
 */
export async function updateRequestPages(web: FastifyInstance): Promise<void> {
  const { store } = web.ctx;
  const show = (req: FastifyRequest, reply: FastifyReply, token: string, form: UpdateFormView, extra: Record<string, unknown> = {}, status = 200) =>
    page(req, reply, 'update-request.eta', { title: `Update request: ${form.sheetName}`, form, token, ...extra }, status);

  web.get<{ Params: { token: string } }>('/updaterequests/:token', async (req, reply) => {
    return show(req, reply, req.params.token, await readUpdateForm(store.db, req.params.token));
  });

  web.post<{ Params: { token: string } }>('/updaterequests/:token', { preHandler: web.csrfProtection }, async (req, reply) => {
    const token = req.params.token;
    try {
      const form = await submitUpdateForm(store, token, (req.body ?? {}) as Record<string, unknown>);
      return show(req, reply, token, form, { done: true });
    } catch (e) {
      const refusal = pageRefusal(e);
      if (refusal === undefined || refusal.errorCode === 1006) throw e;
      // a value the column refuses: the form again with the reason
      return show(req, reply, token, await readUpdateForm(store.db, token), { error: refusal.message }, refusal.statusCode);
    }
  });
}
