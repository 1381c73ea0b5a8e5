import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import { createRule, deleteRule, getRule, listRules, updateRule } from '../../services/outbound/automation.ts';
import { decide, getApproval, type ApprovalView } from '../../services/outbound/automationRuns.ts';
import { paging, pathId, type Query } from '../query.ts';
import { paginate } from '../paging.ts';
import { success } from '../present/envelope.ts';
import { presentRule } from '../present/automation.ts';

type SheetReq = FastifyRequest<{ Params: { sheetId: string } }>;
type RuleReq = FastifyRequest<{ Params: { sheetId: string; ruleId: string } }>;
type TokenReq = FastifyRequest<{ Params: { token: string }; Querystring: Record<string, string | undefined> }>;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function wantsHtml(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('text/html') && accept.indexOf('text/html') < (accept.indexOf('application/json') === -1 ? Infinity : accept.indexOf('application/json'));
}

/** The approval page: what is asked and, until someone decided, a button that decides. */
function approvalPage(v: ApprovalView, decision: string | undefined, token: string): string {
  const head = `<!doctype html><html><head><meta charset="utf-8"><title>Approval request</title></head><body style="font-family:sans-serif;max-width:40em;margin:2em auto">`;
  const what = `<p>The rule <b>${esc(v.ruleName)}</b> asks <b>${esc(v.email)}</b> to approve the row <b>${esc(v.rowName)}</b> of the sheet <b>${esc(v.sheetName)}</b>.</p>`;
  if (v.decision) return `${head}${what}<p id="decision">${v.decision === 'APPROVED' ? 'Approved' : 'Declined'} by ${esc(v.decidedBy ?? '')}.</p></body></html>`;
  const d = decision === 'DECLINED' ? 'DECLINED' : 'APPROVED';
  return `${head}${what}<form method="post" action="${esc(token)}"><input type="hidden" name="decision" value="${d}"><button type="submit">${d === 'APPROVED' ? 'Approve' : 'Decline'}</button></form></body></html>`;
}

function answer(req: FastifyRequest, reply: FastifyReply, v: ApprovalView, decision: string | undefined, token: string) {
  if (wantsHtml(req)) return reply.type('text/html; charset=utf-8').send(approvalPage(v, decision, token));
  return v;
}

/**
 * Automation rules (spec 4.6) and their sheetd extensions:
 *   GET /sheets/{sheetId}/automationrules, GET|PUT|DELETE .../automationrules/{ruleId}
 *   POST /sheetd/sheets/{sheetId}/automationrules (create)
 *   GET|POST /sheetd/approvals/{token} (the link of an approval request; no Authorization)
 */
export async function automationRoutes(app: FastifyInstance): Promise<void> {
  const store = () => app.ctx.store;
  const settings = () => ({ enabled: app.ctx.config.automation });

  app.get('/sheets/:sheetId/automationrules', { config: { scope: 'READ_SHEETS' } }, async (req: SheetReq) => {
    const rules = await listRules(store().db, req.actor, pathId(req.params.sheetId), settings());
    return paginate(rules.map((r) => presentRule(r, req.ro.numericDates)), paging(req.query as Query));
  });

  app.post('/sheetd/sheets/:sheetId/automationrules', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: SheetReq) => {
    return success(presentRule(await createRule(store(), req.actor, pathId(req.params.sheetId), req.body, settings()), req.ro.numericDates));
  });

  app.get('/sheets/:sheetId/automationrules/:ruleId', { config: { scope: 'READ_SHEETS' } }, async (req: RuleReq) => {
    return presentRule(await getRule(store().db, req.actor, pathId(req.params.sheetId), pathId(req.params.ruleId), settings()), req.ro.numericDates);
  });

  app.put('/sheets/:sheetId/automationrules/:ruleId', { config: { scope: 'WRITE_SHEETS', body: 'required' } }, async (req: RuleReq) => {
    return success(presentRule(await updateRule(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.ruleId), req.body, settings()), req.ro.numericDates));
  });

  app.delete('/sheets/:sheetId/automationrules/:ruleId', { config: { scope: 'WRITE_SHEETS' } }, async (req: RuleReq) => {
    await deleteRule(store(), req.actor, pathId(req.params.sheetId), pathId(req.params.ruleId));
    return success();
  });

  // The approval link: the signed token is the permission. GET only shows (mail scanners
  // open links); POST (the page's button, or a JSON client) decides.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const html = { public: true, produces: ['text/html'] };

  app.get('/sheetd/approvals/:token', { config: html }, async (req: TokenReq, reply) => {
    return answer(req, reply, await getApproval(store().db, req.params.token), req.query.decision, req.params.token);
  });

  app.post('/sheetd/approvals/:token', { config: html }, async (req: TokenReq, reply) => {
    const b = req.body;
    const fromBody = b !== null && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>).decision : undefined;
    const decision = fromBody ?? req.query.decision;
    return answer(req, reply, await decide(store(), req.params.token, decision), undefined, req.params.token);
  });
}
