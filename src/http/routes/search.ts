import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SEARCH_SCOPES, searchAll, searchSheet, type SearchResult } from '../../services/log/search.ts';
import { apiError } from '../../errors.ts';
import { enumList, one, pathId, type Query } from '../query.ts';
import { parseTimestamp } from '../present/dates.ts';

function queryText(q: Query): string {
  const text = one(q, 'query');
  if (text === undefined || text.trim() === '') throw apiError(1009, 'query');
  if (text.length > 1000) throw apiError(1018, `${text.slice(0, 20)}...`, 'query');
  return text;
}

/** SearchResult: `results` (SearchResultItem objects, at most 100) and `totalCount`. */
function present(r: SearchResult) {
  return { results: r.items, totalCount: r.totalCount };
}

/** Search Everything and Search Sheet. */
export async function searchRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;

  app.get('/search', { config: { scope: 'READ_SHEETS' } }, async (req) => {
    const q = req.query as Query;
    const query = queryText(q);
    const location = one(q, 'location');
    if (location !== undefined && location !== '' && location !== 'personalWorkspace') throw apiError(1018, location, 'location');
    const since = one(q, 'modifiedSince');
    return present(await searchAll(store(), req.actor, {
      query,
      scopes: new Set(enumList(q, 'scopes', SEARCH_SCOPES)),
      personal: location === 'personalWorkspace',
      // an ISO date-time, or epoch milliseconds (what the SDKs document)
      modifiedSince: since === undefined || since === '' ? undefined : /^\d+$/.test(since) ? parseTimestamp(since, true, 'modifiedSince') : parseTimestamp(since, false, 'modifiedSince'),
      favoriteFlag: req.ro.include.has('favoriteFlag'),
    }));
  });

  app.get('/search/sheets/:sheetId', { config: { scope: 'READ_SHEETS' } }, async (req: FastifyRequest<{ Params: { sheetId: string } }>) => {
    const sheetId = pathId(req.params.sheetId);
    return present(await searchSheet(store(), req.actor, sheetId, queryText(req.query as Query)));
  });
}
