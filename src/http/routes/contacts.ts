import type { FastifyInstance } from 'fastify';
import { contact } from '../present/users.ts';
import { one, paging, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { parseTimestamp } from '../present/dates.ts';
import { readContact, readContacts } from '../../services/identity/contacts.ts';
import { apiError } from '../../errors.ts';

export async function contactRoutes(app: FastifyInstance): Promise<void> {
  const db = () => app.ctx.store.db;

  app.get('/contacts', { config: { scope: 'READ_CONTACTS' } }, async (req) => {
    const q = req.query as Query;
    const since = one(q, 'modifiedSince');
    const modifiedSince = since !== undefined ? parseTimestamp(since, req.ro.numericDates, 'modifiedSince') : undefined;
    const all = await readContacts(db(), req.actor, modifiedSince !== undefined ? { modifiedSince } : {});
    return paginate(all.map(contact), paging(q));
  });

  app.get('/contacts/:contactId', { config: { scope: 'READ_CONTACTS' } }, async (req) => {
    const id = (req.params as { contactId: string }).contactId;
    if (typeof id !== 'string' || id === '') throw apiError(1006);
    return contact(await readContact(db(), req.actor, id));
  });
}
