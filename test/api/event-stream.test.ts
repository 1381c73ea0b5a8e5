import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client, type Res } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { pngBytes } from '../helpers/images.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';

/**
 * The event stream tells the whole story: every mutating route, called successfully, appends
 * the change event of its kind (objectType and action) to GET /events. The walk covers every
 * mutating route the server registers (a new route without a recipe here fails the last test),
 * and the expected pairs are the event types sheetd records (docs/decisions.md "Events").
 */
let t: TestServer;
let api: Client;
let rx: Receiver;

before(async () => {
  rx = await startReceiver();
  t = await startSuiteServer({ SHEETD_WEBHOOK_CA_FILE: rx.caFile, SHEETD_WEBHOOK_PORTS: String(rx.port), SHEETD_RATE_LIMIT: '100000' });
  api = client(t.base, t.adminToken);
});
after(async () => {
  await t.close();
  await rx.close();
});

type Ev = { objectType: string; action: string; objectId: number; additionalDetails?: { sheetdEvent?: { objectType: string; action: string; objectId: number } } };

/** The public service's event names (its SDKs' EventObjectType and EventAction enums). */
const PUBLIC_OBJECT_TYPES = ['ACCESS_TOKEN', 'ACCOUNT', 'ATTACHMENT', 'DASHBOARD', 'DISCUSSION', 'FOLDER', 'FORM', 'GROUP', 'SHEET', 'REPORT', 'UPDATE_REQUEST', 'USER', 'WORKSPACE'];
const PUBLIC_ACTIONS = ['CREATE', 'UPDATE', 'LOAD', 'DELETE', 'PURGE', 'RESTORE', 'RENAME', 'ACTIVATE', 'DEACTIVATE', 'EXPORT', 'MOVE', 'MOVE_ROW', 'COPY_ROW',
  'SAVE_AS_NEW', 'SAVE_AS_TEMPLATE', 'ADD_PUBLISH', 'REMOVE_PUBLISH', 'ADD_SHARE', 'REMOVE_SHARE', 'ADD_SHARE_MEMBER', 'REMOVE_SHARE_MEMBER', 'ADD_WORKSPACE_SHARE',
  'REMOVE_WORKSPACE_SHARE', 'ADD_MEMBER', 'REMOVE_MEMBER', 'TRANSFER_OWNERSHIP', 'CREATE_CELL_LINK', 'REMOVE_SHARES', 'TRANSFER_OWNED_GROUPS', 'TRANSFER_OWNED_ITEMS',
  'DOWNLOAD_SHEET_ACCESS_REPORT', 'DOWNLOAD_USER_LIST', 'DOWNLOAD_LOGIN_HISTORY', 'DOWNLOAD_PUBLISHED_ITEMS_REPORT', 'UPDATE_MAIN_CONTACT', 'IMPORT_USERS', 'BULK_UPDATE',
  'LIST_SHEETS', 'REQUEST_BACKUP', 'CREATE_RECURRING_BACKUP', 'UPDATE_RECURRING_BACKUP', 'DELETE_RECURRING_BACKUP', 'REMOVE_FROM_GROUPS', 'SEND_AS_ATTACHMENT',
  'SEND_ROW', 'SEND', 'SEND_COMMENT', 'SEND_INVITE', 'DECLINE_INVITE', 'ACCEPT_INVITE', 'SEND_PASSWORD_RESET', 'REMOVE_FROM_ACCOUNT', 'ADD_TO_ACCOUNT', 'AUTHORIZE', 'REVOKE'];
async function position(): Promise<string> {
  let r = await api.get('/events?since=2000-01-01T00:00:00Z&maxCount=10000');
  while (r.body.moreAvailable) r = await api.get(`/events?streamPosition=${r.body.nextStreamPosition}&maxCount=10000`);
  return r.body.nextStreamPosition as string;
}
async function eventsAfter(pos: string): Promise<Ev[]> {
  return (await api.get(`/events?streamPosition=${pos}&maxCount=10000`)).body.data as Ev[];
}

const COLS = [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }, { title: 'Other', type: 'TEXT_NUMBER' }];
let n = 0;
const uniq = (p: string) => `${p}${++n}`;
const sheet = () => makeSheet(api, uniq('es sheet '), COLS);
const ok = (r: Res) => {
  assert.ok(r.status === 200, `${r.status} ${r.text}`);
  return r.body;
};
const rowsOf = async (sheetId: number, colId: number, count = 1) =>
  (ok(await api.post(`/sheets/${sheetId}/rows`, Array.from({ length: count }, (_, i) => ({ toBottom: true, cells: [{ columnId: colId, value: `v${i}` }] })))).result as Array<{ id: number }>).map((r) => r.id);
const upload = (path: string, bytes: Buffer | string, name: string, type: string) =>
  api.call('POST', path, { raw: bytes, headers: { 'content-type': type, 'content-disposition': `attachment; filename="${name}"` } });
const home = async () => ok(await api.post('/home/folders', { name: uniq('es folder ') })).result.id as number;
const workspace = async () => ok(await api.post('/workspaces', { name: uniq('es ws ') })).result.id as number;
const user = async () => (await makeUser(t, api, `${uniq('es.user')}@example.com`)).id;
/** A user to share with: its address. */
const sharee = async () => {
  const email = `${uniq('es.sharee')}@example.com`;
  await makeUser(t, api, email);
  return email;
};
const discussion = async (sheetId: number) => ok(await api.post(`/sheets/${sheetId}/discussions`, { comment: { text: 'hello' } })).result as { id: number; comments: Array<{ id: number }> };
const fileAttachment = async (sheetId: number) => ok(await upload(`/sheets/${sheetId}/attachments`, 'file one', 'a.txt', 'text/plain')).result.id as number;
/** A proof (one PNG) on a new row of a new sheet. */
const proof = async () => {
  const s = await sheet();
  const [r] = await rowsOf(s.id, s.col.Name!.id);
  return { sheetId: s.id, id: ok(await upload(`/sheets/${s.id}/rows/${r}/proofs`, pngBytes(2, 2), 'p.png', 'image/png')).result.id as number };
};
const filterBody = (colId: number) => ({ name: uniq('F'), filterType: 'SHARED', query: { operator: 'AND', criteria: [{ columnId: colId, operator: 'IS_NOT_BLANK' }] } });
const reportOf = async () => {
  const s = await sheet();
  return ok(await api.post('/sheetd/reports', { name: uniq('es report '), scope: { sheets: [{ id: s.id }] }, columns: [{ title: 'Name', type: 'TEXT_NUMBER' }] })).result.id as number;
};
const sightOf = async () => ok(await api.post('/sheetd/sights', { name: uniq('es dash '), widgets: [{ type: 'TITLE', contents: { htmlContent: '<p>hi</p>' } }] })).result.id as number;
const ruleBody = () => ({ name: uniq('rule '), trigger: { type: 'ROWS_ADDED' }, action: { type: 'NOTIFICATION_ACTION', recipients: [{ email: 'admin@example.com' }] } });
const mailTo = { sendTo: [{ email: 'es.mail@example.org' }] };
const hookBody = (sheetId: number) => ({ name: 'es', callbackUrl: rx.url, scope: 'sheet', scopeObjectId: sheetId, events: ['*.*'], version: 1 });
const scheduledRequest = async (s: { id: number; col: Record<string, { id: number }> }) => {
  const [r] = await rowsOf(s.id, s.col.Name!.id);
  return ok(await api.post(`/sheets/${s.id}/updaterequests`, { ...mailTo, rowIds: [r], schedule: { type: 'DAILY', startAt: '2031-01-01T09:00:00Z' } })).result.id as number;
};

/** A recipe: prepares what the route needs, calls mark() right before the request, and makes it. */
interface Recipe {
  run: (mark: () => Promise<void>) => Promise<Res>;
  /** The event the request must record. */
  expect: [objectType: string, action: string];
}

const R: Record<string, Recipe> = {
  // sheets and their parts
  'POST /sheets': { expect: ['SHEET', 'CREATE'], run: async (m) => { await m(); return api.post('/sheets', { name: uniq('es new '), columns: COLS }); } },
  'PUT /sheets/:sheetId': { expect: ['SHEET', 'RENAME'], run: async (m) => { const s = await sheet(); await m(); return api.put(`/sheets/${s.id}`, { name: uniq('renamed ') }); } },
  'DELETE /sheets/:sheetId': { expect: ['SHEET', 'DELETE'], run: async (m) => { const s = await sheet(); await m(); return api.del(`/sheets/${s.id}`); } },
  'POST /sheets/:sheetId/copy': { expect: ['SHEET', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheets/${s.id}/copy`, { destinationType: 'home', newName: uniq('copy ') }); } },
  'POST /sheets/:sheetId/move': { expect: ['SHEET', 'MOVE'], run: async (m) => { const s = await sheet(); const f = await home(); await m(); return api.post(`/sheets/${s.id}/move`, { destinationType: 'folder', destinationId: f }); } },
  'POST /sheets/:sheetId/sort': { expect: ['SHEET', 'SORT'], run: async (m) => { const s = await sheet(); await rowsOf(s.id, s.col.Name!.id, 2); await m(); return api.post(`/sheets/${s.id}/sort`, { sortCriteria: [{ columnId: s.col.Name!.id, direction: 'DESCENDING' }] }); } },
  'POST /sheets/:sheetId/rows': { expect: ['ROW', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheets/${s.id}/rows`, [{ toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'x' }] }]); } },
  'PUT /sheets/:sheetId/rows': { expect: ['ROW', 'UPDATE'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.put(`/sheets/${s.id}/rows`, [{ id: r, cells: [{ columnId: s.col.Other!.id, value: 'y' }] }]); } },
  'DELETE /sheets/:sheetId/rows': { expect: ['ROW', 'DELETE'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.del(`/sheets/${s.id}/rows?ids=${r}`); } },
  'DELETE /sheets/:sheetId/rows/:rowId': { expect: ['ROW', 'DELETE'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.del(`/sheets/${s.id}/rows/${r}`); } },
  'POST /sheets/:sheetId/rows/copy': { expect: ['ROW', 'CREATE'], run: async (m) => { const s = await sheet(); const d = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.post(`/sheets/${s.id}/rows/copy`, { rowIds: [r], to: { sheetId: d.id } }); } },
  'POST /sheets/:sheetId/rows/move': { expect: ['ROW', 'DELETE'], run: async (m) => { const s = await sheet(); const d = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.post(`/sheets/${s.id}/rows/move`, { rowIds: [r], to: { sheetId: d.id } }); } },
  'POST /sheets/:sheetId/columns': { expect: ['COLUMN', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheets/${s.id}/columns`, [{ title: 'New', type: 'TEXT_NUMBER', index: 1 }]); } },
  'PUT /sheets/:sheetId/columns/:columnId': { expect: ['COLUMN', 'UPDATE'], run: async (m) => { const s = await sheet(); await m(); return api.put(`/sheets/${s.id}/columns/${s.col.Other!.id}`, { title: 'Renamed' }); } },
  'DELETE /sheets/:sheetId/columns/:columnId': { expect: ['COLUMN', 'DELETE'], run: async (m) => { const s = await sheet(); await m(); return api.del(`/sheets/${s.id}/columns/${s.col.Other!.id}`); } },
  'POST /sheets/:sheetId/crosssheetreferences': { expect: ['SHEET', 'UPDATE'], run: async (m) => { const s = await sheet(); const src = await sheet(); await m(); return api.post(`/sheets/${s.id}/crosssheetreferences`, { name: 'ref', sourceSheetId: src.id, startColumnId: src.col.Name!.id, endColumnId: src.col.Name!.id }); } },
  'POST /sheets/:sheetId/rows/:rowId/columns/:columnId/cellimages': { expect: ['ROW', 'UPDATE'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return upload(`/sheets/${s.id}/rows/${r}/columns/${s.col.Other!.id}/cellimages`, pngBytes(2, 2), 'i.png', 'image/png'); } },
  'POST /sheetd/sheets/:sheetId/filters': { expect: ['SHEET', 'UPDATE'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheetd/sheets/${s.id}/filters`, filterBody(s.col.Name!.id)); } },
  'PUT /sheetd/sheets/:sheetId/filters/:filterId': { expect: ['SHEET', 'UPDATE'], run: async (m) => { const s = await sheet(); const f = ok(await api.post(`/sheetd/sheets/${s.id}/filters`, filterBody(s.col.Name!.id))).result.id; await m(); return api.put(`/sheetd/sheets/${s.id}/filters/${f}`, { name: uniq('G') }); } },
  'DELETE /sheetd/sheets/:sheetId/filters/:filterId': { expect: ['SHEET', 'UPDATE'], run: async (m) => { const s = await sheet(); const f = ok(await api.post(`/sheetd/sheets/${s.id}/filters`, filterBody(s.col.Name!.id))).result.id; await m(); return api.del(`/sheetd/sheets/${s.id}/filters/${f}`); } },
  'DELETE /sheets/:sheetId/filters/:filterId': { expect: ['SHEET', 'UPDATE'], run: async (m) => { const s = await sheet(); const f = ok(await api.post(`/sheetd/sheets/${s.id}/filters`, filterBody(s.col.Name!.id))).result.id; await m(); return api.del(`/sheets/${s.id}/filters/${f}`); } },
  'PUT /sheetd/sheets/:sheetId/conditionalformats': { expect: ['SHEET', 'UPDATE'], run: async (m) => { const s = await sheet(); await m(); return api.put(`/sheetd/sheets/${s.id}/conditionalformats`, { rules: [{ format: ',,1,,,,,,,,,,,,,,', query: { criteria: [{ columnId: s.col.Name!.id, operator: 'IS_NOT_BLANK' }] } }] }); } },
  // attachments, discussions, comments
  'POST /sheets/:sheetId/attachments': { expect: ['ATTACHMENT', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheets/${s.id}/attachments`, { attachmentType: 'LINK', url: 'https://example.com/x', name: 'x' }); } },
  'POST /sheets/:sheetId/rows/:rowId/attachments': { expect: ['ATTACHMENT', 'CREATE'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.post(`/sheets/${s.id}/rows/${r}/attachments`, { attachmentType: 'LINK', url: 'https://example.com/y', name: 'y' }); } },
  'POST /sheets/:sheetId/comments/:commentId/attachments': { expect: ['ATTACHMENT', 'CREATE'], run: async (m) => { const s = await sheet(); const d = await discussion(s.id); await m(); return upload(`/sheets/${s.id}/comments/${d.comments[0]!.id}/attachments`, 'note', 'n.txt', 'text/plain'); } },
  'POST /sheets/:sheetId/attachments/:attachmentId/versions': { expect: ['ATTACHMENT', 'CREATE'], run: async (m) => { const s = await sheet(); const a = await fileAttachment(s.id); await m(); return upload(`/sheets/${s.id}/attachments/${a}/versions`, 'file two', 'a.txt', 'text/plain'); } },
  'DELETE /sheets/:sheetId/attachments/:attachmentId': { expect: ['ATTACHMENT', 'DELETE'], run: async (m) => { const s = await sheet(); const a = await fileAttachment(s.id); await m(); return api.del(`/sheets/${s.id}/attachments/${a}`); } },
  'DELETE /sheets/:sheetId/attachments/:attachmentId/versions': { expect: ['ATTACHMENT', 'DELETE'], run: async (m) => { const s = await sheet(); const a = await fileAttachment(s.id); await m(); return api.del(`/sheets/${s.id}/attachments/${a}/versions`); } },
  'POST /sheets/:sheetId/discussions': { expect: ['DISCUSSION', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheets/${s.id}/discussions`, { comment: { text: 'hi' } }); } },
  'POST /sheets/:sheetId/rows/:rowId/discussions': { expect: ['DISCUSSION', 'CREATE'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.post(`/sheets/${s.id}/rows/${r}/discussions`, { comment: { text: 'hi' } }); } },
  'DELETE /sheets/:sheetId/discussions/:discussionId': { expect: ['DISCUSSION', 'DELETE'], run: async (m) => { const s = await sheet(); const d = await discussion(s.id); await m(); return api.del(`/sheets/${s.id}/discussions/${d.id}`); } },
  'POST /sheets/:sheetId/discussions/:discussionId/comments': { expect: ['COMMENT', 'CREATE'], run: async (m) => { const s = await sheet(); const d = await discussion(s.id); await m(); return api.post(`/sheets/${s.id}/discussions/${d.id}/comments`, { text: 'more' }); } },
  'PUT /sheets/:sheetId/comments/:commentId': { expect: ['COMMENT', 'UPDATE'], run: async (m) => { const s = await sheet(); const d = await discussion(s.id); await m(); return api.put(`/sheets/${s.id}/comments/${d.comments[0]!.id}`, { text: 'edited' }); } },
  'DELETE /sheets/:sheetId/comments/:commentId': { expect: ['COMMENT', 'DELETE'], run: async (m) => { const s = await sheet(); const d = await discussion(s.id); await api.post(`/sheets/${s.id}/discussions/${d.id}/comments`, { text: 'second' }); await m(); return api.del(`/sheets/${s.id}/comments/${d.comments[0]!.id}`); } },
  'POST /sheets/:sheetId/emails': { expect: ['SHEET', 'SEND_AS_ATTACHMENT'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheets/${s.id}/emails`, { ...mailTo, format: 'PDF' }); } },
  'POST /sheets/:sheetId/rows/emails': { expect: ['SHEET', 'SEND_ROW'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.post(`/sheets/${s.id}/rows/emails`, { ...mailTo, rowIds: [r] }); } },
  'POST /sheets/:sheetId/rows/:rowId/emails': { expect: ['SHEET', 'SEND_ROW'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.post(`/sheets/${s.id}/rows/${r}/emails`, mailTo); } },
  // proofs
  'POST /sheets/:sheetId/rows/:rowId/proofs': { expect: ['PROOF', 'CREATE'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return upload(`/sheets/${s.id}/rows/${r}/proofs`, pngBytes(2, 2), 'p.png', 'image/png'); } },
  'PUT /sheets/:sheetId/proofs/:proofId': { expect: ['PROOF', 'UPDATE'], run: async (m) => { const p = await proof(); await m(); return api.put(`/sheets/${p.sheetId}/proofs/${p.id}`, { isCompleted: true }); } },
  'DELETE /sheets/:sheetId/proofs/:proofId': { expect: ['PROOF', 'DELETE'], run: async (m) => { const p = await proof(); await m(); return api.del(`/sheets/${p.sheetId}/proofs/${p.id}`); } },
  'POST /sheets/:sheetId/proofs/:proofId/versions': { expect: ['PROOF', 'CREATE'], run: async (m) => { const p = await proof(); await m(); return upload(`/sheets/${p.sheetId}/proofs/${p.id}/versions`, pngBytes(3, 3), 'v.png', 'image/png'); } },
  'DELETE /sheets/:sheetId/proofs/:proofId/versions': { expect: ['PROOF', 'DELETE'], run: async (m) => { const p = await proof(); const v = ok(await upload(`/sheets/${p.sheetId}/proofs/${p.id}/versions`, pngBytes(3, 3), 'v.png', 'image/png')).result.id; await m(); return api.del(`/sheets/${p.sheetId}/proofs/${v}/versions`); } },
  'POST /sheets/:sheetId/proofs/:proofId/attachments': { expect: ['ATTACHMENT', 'CREATE'], run: async (m) => { const p = await proof(); await m(); return upload(`/sheets/${p.sheetId}/proofs/${p.id}/attachments`, pngBytes(3, 3), 'more.png', 'image/png'); } },
  'POST /sheets/:sheetId/proofs/:proofId/discussions': { expect: ['DISCUSSION', 'CREATE'], run: async (m) => { const p = await proof(); await m(); return api.post(`/sheets/${p.sheetId}/proofs/${p.id}/discussions`, { comment: { text: 'hi' } }); } },
  'POST /sheets/:sheetId/proofs/:proofId/requests': { expect: ['PROOF_REQUEST', 'CREATE'], run: async (m) => { const p = await proof(); await m(); return api.post(`/sheets/${p.sheetId}/proofs/${p.id}/requests`, mailTo); } },
  'DELETE /sheets/:sheetId/proofs/:proofId/requests': { expect: ['PROOF_REQUEST', 'DELETE'], run: async (m) => { const p = await proof(); ok(await api.post(`/sheets/${p.sheetId}/proofs/${p.id}/requests`, mailTo)); await m(); return api.del(`/sheets/${p.sheetId}/proofs/${p.id}/requests`); } },
  'PUT /sheetd/sheets/:sheetId/proofing': { expect: ['SHEET', 'UPDATE'], run: async (m) => { const s = await sheet(); await m(); return api.put(`/sheetd/sheets/${s.id}/proofing`, { multiImage: false }); } },
  // sheet summary and import
  'POST /sheets/:sheetId/summary/fields': { expect: ['SUMMARY_FIELD', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheets/${s.id}/summary/fields`, [{ title: uniq('F'), type: 'TEXT_NUMBER', objectValue: 'x' }]); } },
  'PUT /sheets/:sheetId/summary/fields': { expect: ['SUMMARY_FIELD', 'UPDATE'], run: async (m) => { const s = await sheet(); const f = ok(await api.post(`/sheets/${s.id}/summary/fields`, [{ title: uniq('F'), type: 'TEXT_NUMBER' }])).result[0].id; await m(); return api.put(`/sheets/${s.id}/summary/fields`, [{ id: f, objectValue: 'y' }]); } },
  'DELETE /sheets/:sheetId/summary/fields': { expect: ['SUMMARY_FIELD', 'DELETE'], run: async (m) => { const s = await sheet(); const f = ok(await api.post(`/sheets/${s.id}/summary/fields`, [{ title: uniq('F'), type: 'TEXT_NUMBER' }])).result[0].id; await m(); return api.del(`/sheets/${s.id}/summary/fields?ids=${f}`); } },
  'POST /sheets/:sheetId/summary/fields/:fieldId/images': { expect: ['SUMMARY_FIELD', 'UPDATE'], run: async (m) => { const s = await sheet(); const f = ok(await api.post(`/sheets/${s.id}/summary/fields`, [{ title: uniq('F'), type: 'TEXT_NUMBER' }])).result[0].id; await m(); return upload(`/sheets/${s.id}/summary/fields/${f}/images`, pngBytes(2, 2), 'i.png', 'image/png'); } },
  'POST /sheets/import': { expect: ['SHEET', 'CREATE'], run: async (m) => { await m(); return upload(`/sheets/import?sheetName=${uniq('imported')}&headerRowIndex=0`, 'A,B\n1,2\n', 'i.csv', 'text/csv'); } },
  'POST /folders/:folderId/sheets/import': { expect: ['SHEET', 'CREATE'], run: async (m) => { const f = await home(); await m(); return upload(`/folders/${f}/sheets/import?sheetName=${uniq('imported')}&headerRowIndex=0`, 'A,B\n1,2\n', 'i.csv', 'text/csv'); } },
  'POST /workspaces/:workspaceId/sheets/import': { expect: ['SHEET', 'CREATE'], run: async (m) => { const w = await workspace(); await m(); return upload(`/workspaces/${w}/sheets/import?sheetName=${uniq('imported')}&headerRowIndex=0`, 'A,B\n1,2\n', 'i.csv', 'text/csv'); } },
  // automation rules
  'POST /sheetd/sheets/:sheetId/automationrules': { expect: ['AUTOMATION_RULE', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheetd/sheets/${s.id}/automationrules`, ruleBody()); } },
  'PUT /sheets/:sheetId/automationrules/:ruleId': { expect: ['AUTOMATION_RULE', 'UPDATE'], run: async (m) => { const s = await sheet(); const r = ok(await api.post(`/sheetd/sheets/${s.id}/automationrules`, ruleBody())).result.id; await m(); return api.put(`/sheets/${s.id}/automationrules/${r}`, { name: uniq('rule '), action: { type: 'NOTIFICATION_ACTION' } }); } },
  'DELETE /sheets/:sheetId/automationrules/:ruleId': { expect: ['AUTOMATION_RULE', 'DELETE'], run: async (m) => { const s = await sheet(); const r = ok(await api.post(`/sheetd/sheets/${s.id}/automationrules`, ruleBody())).result.id; await m(); return api.del(`/sheets/${s.id}/automationrules/${r}`); } },
  // update requests
  'POST /sheets/:sheetId/updaterequests': { expect: ['UPDATE_REQUEST', 'CREATE'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); await m(); return api.post(`/sheets/${s.id}/updaterequests`, { ...mailTo, rowIds: [r] }); } },
  'PUT /sheets/:sheetId/updaterequests/:updateRequestId': { expect: ['UPDATE_REQUEST', 'UPDATE'], run: async (m) => { const s = await sheet(); const u = await scheduledRequest(s); await m(); return api.put(`/sheets/${s.id}/updaterequests/${u}`, { subject: uniq('subject ') }); } },
  'DELETE /sheets/:sheetId/updaterequests/:updateRequestId': { expect: ['UPDATE_REQUEST', 'DELETE'], run: async (m) => { const s = await sheet(); const u = await scheduledRequest(s); await m(); return api.del(`/sheets/${s.id}/updaterequests/${u}`); } },
  'DELETE /sheets/:sheetId/sentupdaterequests/:sentUpdateRequestId': { expect: ['SENT_UPDATE_REQUEST', 'DELETE'], run: async (m) => { const s = await sheet(); const [r] = await rowsOf(s.id, s.col.Name!.id); ok(await api.post(`/sheets/${s.id}/updaterequests`, { ...mailTo, rowIds: [r] })); const sent = ok(await api.get(`/sheets/${s.id}/sentupdaterequests`)).data[0].id; await m(); return api.del(`/sheets/${s.id}/sentupdaterequests/${sent}`); } },
  // reports
  'POST /sheetd/reports': { expect: ['REPORT', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post('/sheetd/reports', { name: uniq('es report '), scope: { sheets: [{ id: s.id }] }, columns: [{ title: 'Name', type: 'TEXT_NUMBER' }] }); } },
  'PUT /sheetd/reports/:reportId': { expect: ['REPORT', 'RENAME'], run: async (m) => { const r = await reportOf(); await m(); return api.put(`/sheetd/reports/${r}`, { name: uniq('es renamed report ') }); } },
  'DELETE /sheetd/reports/:reportId': { expect: ['REPORT', 'DELETE'], run: async (m) => { const r = await reportOf(); await m(); return api.del(`/sheetd/reports/${r}`); } },
  'POST /reports': { expect: ['REPORT', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post('/reports', { name: uniq('es api report '), columns: [{ title: 'Name', type: 'TEXT_NUMBER', index: 0 }], scope: [{ assetType: 'sheet', assetId: s.id }] }); } },
  'DELETE /reports/:reportId': { expect: ['REPORT', 'DELETE'], run: async (m) => { const r = await reportOf(); await m(); return api.del(`/reports/${r}`); } },
  'PUT /reports/:reportId/definition': { expect: ['REPORT', 'UPDATE'], run: async (m) => { const r = await reportOf(); await m(); return api.put(`/reports/${r}/definition`, { sortingCriteria: [{ column: { title: 'Name', type: 'TEXT_NUMBER' }, sortingDirection: 'DESCENDING' }] }); } },
  'POST /reports/:reportId/scope': { expect: ['REPORT', 'UPDATE'], run: async (m) => { const r = await reportOf(); const s = await sheet(); await m(); return api.post(`/reports/${r}/scope`, [{ assetType: 'sheet', assetId: s.id }]); } },
  'DELETE /reports/:reportId/scope': {
    expect: ['REPORT', 'UPDATE'],
    run: async (m) => {
      const r = await reportOf();
      const scope = ok(await api.get(`/reports/${r}/scope`)).data as Array<{ assetType: string; assetId: number }>;
      await m();
      return api.call('DELETE', `/reports/${r}/scope`, { body: scope });
    },
  },
  'POST /reports/:reportId/columns': { expect: ['REPORT', 'UPDATE'], run: async (m) => { const r = await reportOf(); await m(); return api.post(`/reports/${r}/columns`, [{ title: 'Other', type: 'TEXT_NUMBER', index: 1 }]); } },
  'PUT /reports/:reportId/columns/:columnVirtualId': {
    expect: ['REPORT', 'UPDATE'],
    run: async (m) => {
      const r = await reportOf();
      const [c] = ok(await api.get(`/reports/${r}/columns`)).data as Array<{ virtualId: number }>;
      await m();
      return api.put(`/reports/${r}/columns/${c!.virtualId}`, { width: 180 });
    },
  },
  'DELETE /reports/:reportId/columns/:columnVirtualId': {
    expect: ['REPORT', 'UPDATE'],
    run: async (m) => {
      const r = await reportOf();
      const added = ok(await api.post(`/reports/${r}/columns`, [{ title: 'Other', type: 'TEXT_NUMBER', index: 1 }])).result as Array<{ virtualId: number }>;
      await m();
      return api.del(`/reports/${r}/columns/${added[0]!.virtualId}`);
    },
  },
  'PUT /reports/:reportId/publish': { expect: ['REPORT', 'UPDATE'], run: async (m) => { const r = await reportOf(); await m(); return api.put(`/reports/${r}/publish`, { readOnlyFullEnabled: true }); } },
  // publishing and templates
  'PUT /sheets/:sheetId/publish': { expect: ['SHEET', 'UPDATE'], run: async (m) => { const s = await sheet(); await m(); return api.put(`/sheets/${s.id}/publish`, { readOnlyLiteEnabled: true }); } },
  'POST /sheetd/sheets/:sheetId/template': { expect: ['SHEET', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post(`/sheetd/sheets/${s.id}/template?include=data`, { name: uniq('es template ') }); } },
  'POST /reports/:reportId/emails': { expect: ['REPORT', 'SEND_AS_ATTACHMENT'], run: async (m) => { const r = await reportOf(); await m(); return api.post(`/reports/${r}/emails`, { ...mailTo, format: 'EXCEL' }); } },
  'POST /reports/:id/shares': { expect: ['REPORT', 'ADD_SHARE'], run: async (m) => { const r = await reportOf(); const u = await sharee(); await m(); return api.post(`/reports/${r}/shares`, { email: u, accessLevel: 'VIEWER' }); } },
  'PUT /reports/:id/shares/:shareId': { expect: ['REPORT', 'UPDATE_SHARE'], run: async (m) => { const r = await reportOf(); const u = await sharee(); const sh = ok(await api.post(`/reports/${r}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.put(`/reports/${r}/shares/${sh.id}`, { accessLevel: 'EDITOR' }); } },
  // dashboards
  'POST /sheetd/sights': { expect: ['DASHBOARD', 'CREATE'], run: async (m) => { await m(); return api.post('/sheetd/sights', { name: uniq('es dash '), widgets: [{ type: 'RICHTEXT', contents: { htmlContent: '<p>x</p>' } }] }); } },
  'PUT /sheetd/sights/:sightId': { expect: ['DASHBOARD', 'UPDATE'], run: async (m) => { const d = await sightOf(); await m(); return api.put(`/sheetd/sights/${d}`, { widgets: [] }); } },
  'POST /sheetd/sights/:sightId/images': { expect: ['DASHBOARD', 'UPDATE'], run: async (m) => { const d = await sightOf(); await m(); return upload(`/sheetd/sights/${d}/images`, pngBytes(2, 2), 'i.png', 'image/png'); } },
  'PUT /sights/:sightId': { expect: ['DASHBOARD', 'RENAME'], run: async (m) => { const d = await sightOf(); await m(); return api.put(`/sights/${d}`, { name: uniq('es renamed dash ') }); } },
  'DELETE /sights/:sightId': { expect: ['DASHBOARD', 'DELETE'], run: async (m) => { const d = await sightOf(); await m(); return api.del(`/sights/${d}`); } },
  'POST /sights/:sightId/copy': { expect: ['DASHBOARD', 'CREATE'], run: async (m) => { const d = await sightOf(); await m(); return api.post(`/sights/${d}/copy`, { destinationType: 'home', newName: uniq('es dash copy ') }); } },
  'POST /sights/:sightId/move': { expect: ['DASHBOARD', 'MOVE'], run: async (m) => { const d = await sightOf(); const f = await home(); await m(); return api.post(`/sights/${d}/move`, { destinationType: 'folder', destinationId: f }); } },
  'PUT /sights/:sightId/publish': { expect: ['DASHBOARD', 'ADD_PUBLISH'], run: async (m) => { const d = await sightOf(); await m(); return api.put(`/sights/${d}/publish`, { readOnlyFullEnabled: true }); } },
  'POST /sights/:id/shares': { expect: ['DASHBOARD', 'ADD_SHARE'], run: async (m) => { const d = await sightOf(); const u = await sharee(); await m(); return api.post(`/sights/${d}/shares`, { email: u, accessLevel: 'VIEWER' }); } },
  'PUT /sights/:id/shares/:shareId': { expect: ['DASHBOARD', 'UPDATE_SHARE'], run: async (m) => { const d = await sightOf(); const u = await sharee(); const sh = ok(await api.post(`/sights/${d}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.put(`/sights/${d}/shares/${sh.id}`, { accessLevel: 'ADMIN' }); } },
  'DELETE /sights/:id/shares/:shareId': { expect: ['DASHBOARD', 'REMOVE_SHARE'], run: async (m) => { const d = await sightOf(); const u = await sharee(); const sh = ok(await api.post(`/sights/${d}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.del(`/sights/${d}/shares/${sh.id}`); } },
  'DELETE /reports/:id/shares/:shareId': { expect: ['REPORT', 'REMOVE_SHARE'], run: async (m) => { const r = await reportOf(); const u = await sharee(); const sh = ok(await api.post(`/reports/${r}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.del(`/reports/${r}/shares/${sh.id}`); } },
  'DELETE /token': { expect: ['ACCESS_TOKEN', 'DELETE'], run: async (m) => { const u = await makeUser(t, api, `${uniq('es.revoke')}@example.com`); await m(); return api.del('/token', { token: u.token }); } },
  // sharing
  'POST /sheets/:id/shares': { expect: ['SHEET', 'ADD_SHARE'], run: async (m) => { const s = await sheet(); const u = await sharee(); await m(); return api.post(`/sheets/${s.id}/shares`, { email: u, accessLevel: 'VIEWER' }); } },
  'PUT /sheets/:id/shares/:shareId': { expect: ['SHEET', 'UPDATE_SHARE'], run: async (m) => { const s = await sheet(); const u = await sharee(); const sh = ok(await api.post(`/sheets/${s.id}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.put(`/sheets/${s.id}/shares/${sh.id}`, { accessLevel: 'EDITOR' }); } },
  'DELETE /sheets/:id/shares/:shareId': { expect: ['SHEET', 'REMOVE_SHARE'], run: async (m) => { const s = await sheet(); const u = await sharee(); const sh = ok(await api.post(`/sheets/${s.id}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.del(`/sheets/${s.id}/shares/${sh.id}`); } },
  'POST /shares': { expect: ['SHEET', 'ADD_SHARE'], run: async (m) => { const s = await sheet(); const u = await sharee(); await m(); return api.post(`/shares?assetType=sheet&assetId=${s.id}`, [{ email: u, accessLevel: 'VIEWER' }]); } },
  'PATCH /shares/:shareId': { expect: ['SHEET', 'UPDATE_SHARE'], run: async (m) => { const s = await sheet(); const u = await sharee(); const sh = ok(await api.post(`/sheets/${s.id}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.call('PATCH', `/shares/${sh.id}?assetType=sheet&assetId=${s.id}`, { body: { accessLevel: 'EDITOR' } }); } },
  'DELETE /shares/:shareId': { expect: ['SHEET', 'REMOVE_SHARE'], run: async (m) => { const s = await sheet(); const u = await sharee(); const sh = ok(await api.post(`/sheets/${s.id}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.del(`/shares/${sh.id}?assetType=sheet&assetId=${s.id}`); } },
  'POST /workspaces/:id/shares': { expect: ['WORKSPACE', 'ADD_SHARE'], run: async (m) => { const w = await workspace(); const u = await sharee(); await m(); return api.post(`/workspaces/${w}/shares`, { email: u, accessLevel: 'VIEWER' }); } },
  'PUT /workspaces/:id/shares/:shareId': { expect: ['WORKSPACE', 'UPDATE_SHARE'], run: async (m) => { const w = await workspace(); const u = await sharee(); const sh = ok(await api.post(`/workspaces/${w}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.put(`/workspaces/${w}/shares/${sh.id}`, { accessLevel: 'EDITOR' }); } },
  'DELETE /workspaces/:id/shares/:shareId': { expect: ['WORKSPACE', 'REMOVE_SHARE'], run: async (m) => { const w = await workspace(); const u = await sharee(); const sh = ok(await api.post(`/workspaces/${w}/shares`, { email: u, accessLevel: 'VIEWER' })).result; await m(); return api.del(`/workspaces/${w}/shares/${sh.id}`); } },
  // containers
  'POST /home/folders': { expect: ['FOLDER', 'CREATE'], run: async (m) => { await m(); return api.post('/home/folders', { name: uniq('f ') }); } },
  'POST /folders/:folderId/folders': { expect: ['FOLDER', 'CREATE'], run: async (m) => { const f = await home(); await m(); return api.post(`/folders/${f}/folders`, { name: 'inner' }); } },
  'POST /folders/:folderId/sheets': { expect: ['SHEET', 'CREATE'], run: async (m) => { const f = await home(); await m(); return api.post(`/folders/${f}/sheets`, { name: 'in folder', columns: COLS }); } },
  'PUT /folders/:folderId': { expect: ['FOLDER', 'RENAME'], run: async (m) => { const f = await home(); await m(); return api.put(`/folders/${f}`, { name: uniq('renamed f ') }); } },
  'DELETE /folders/:folderId': { expect: ['FOLDER', 'DELETE'], run: async (m) => { const f = await home(); await m(); return api.del(`/folders/${f}`); } },
  'POST /folders/:folderId/copy': { expect: ['FOLDER', 'CREATE'], run: async (m) => { const f = await home(); await m(); return api.post(`/folders/${f}/copy`, { destinationType: 'home', newName: uniq('fcopy ') }); } },
  'POST /folders/:folderId/move': { expect: ['FOLDER', 'MOVE'], run: async (m) => { const f = await home(); const g = await home(); await m(); return api.post(`/folders/${f}/move`, { destinationType: 'folder', destinationId: g }); } },
  'POST /workspaces': { expect: ['WORKSPACE', 'CREATE'], run: async (m) => { await m(); return api.post('/workspaces', { name: uniq('w ') }); } },
  'PUT /workspaces/:workspaceId': { expect: ['WORKSPACE', 'RENAME'], run: async (m) => { const w = await workspace(); await m(); return api.put(`/workspaces/${w}`, { name: uniq('renamed w ') }); } },
  'DELETE /workspaces/:workspaceId': { expect: ['WORKSPACE', 'DELETE'], run: async (m) => { const w = await workspace(); await m(); return api.del(`/workspaces/${w}`); } },
  'POST /workspaces/:workspaceId/copy': { expect: ['WORKSPACE', 'CREATE'], run: async (m) => { const w = await workspace(); await m(); return api.post(`/workspaces/${w}/copy`, { newName: uniq('wcopy ') }); } },
  'POST /workspaces/:workspaceId/folders': { expect: ['FOLDER', 'CREATE'], run: async (m) => { const w = await workspace(); await m(); return api.post(`/workspaces/${w}/folders`, { name: 'wf' }); } },
  'POST /workspaces/:workspaceId/sheets': { expect: ['SHEET', 'CREATE'], run: async (m) => { const w = await workspace(); await m(); return api.post(`/workspaces/${w}/sheets`, { name: 'ws sheet', columns: COLS }); } },
  'POST /favorites': { expect: ['FAVORITE', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post('/favorites', [{ type: 'sheet', objectId: s.id }]); } },
  'DELETE /favorites/:favoriteType/:favoriteId': { expect: ['FAVORITE', 'DELETE'], run: async (m) => { const s = await sheet(); ok(await api.post('/favorites', [{ type: 'sheet', objectId: s.id }])); await m(); return api.del(`/favorites/sheet/${s.id}`); } },
  'DELETE /favorites/:favoriteType': { expect: ['FAVORITE', 'DELETE'], run: async (m) => { const s = await sheet(); ok(await api.post('/favorites', [{ type: 'sheet', objectId: s.id }])); await m(); return api.del(`/favorites/sheet?objectIds=${s.id}`); } },
  // organization
  'POST /users': { expect: ['USER', 'ADD_TO_ACCOUNT'], run: async (m) => { await m(); return api.post('/users', { email: `${uniq('added')}@example.com`, firstName: 'A', lastName: 'B' }); } },
  'PUT /users/:userId(^\\d+$)': { expect: ['USER', 'UPDATE_USER'], run: async (m) => { const u = await user(); await m(); return api.put(`/users/${u}`, { firstName: 'Changed' }); } },
  'POST /users/:userId(^\\d+$)/plans/:planId(^\\d+$)/downgrade': {
    expect: ['USER', 'UPDATE_USER'],
    run: async (m) => { const u = await user(); const plan = ok(await api.get('/users/me')).account.id as number; await m(); return api.post(`/users/${u}/plans/${plan}/downgrade`, { seatType: 'VIEWER' }); },
  },
  'POST /users/:userId(^\\d+$)/plans/:planId(^\\d+$)/upgrade': {
    expect: ['USER', 'UPDATE_USER'],
    run: async (m) => {
      const u = await user();
      const plan = ok(await api.get('/users/me')).account.id as number;
      ok(await api.post(`/users/${u}/plans/${plan}/downgrade`, { seatType: 'VIEWER' }));
      await m();
      return api.post(`/users/${u}/plans/${plan}/upgrade`, { seatType: 'MEMBER' });
    },
  },
  'DELETE /users/:userId(^\\d+$)': { expect: ['USER', 'REMOVE_FROM_ACCOUNT'], run: async (m) => { const u = await user(); await m(); return api.del(`/users/${u}`); } },
  'POST /sheetd/users/:userId(^\\d+$)/passwordlink': { expect: ['USER', 'SEND_PASSWORD_RESET'], run: async (m) => { const u = await user(); await m(); return api.post(`/sheetd/users/${u}/passwordlink`, { sendEmail: false }); } },
  'POST /users/:userId(^\\d+$)/deactivate': { expect: ['USER', 'DEACTIVATE'], run: async (m) => { const u = await user(); await m(); return api.post(`/users/${u}/deactivate`); } },
  'POST /users/:userId(^\\d+$)/reactivate': { expect: ['USER', 'ACTIVATE'], run: async (m) => { const u = await user(); ok(await api.post(`/users/${u}/deactivate`)); await m(); return api.post(`/users/${u}/reactivate`); } },
  'POST /users/:userId(^\\d+$)/profileimage': { expect: ['USER', 'UPDATE'], run: async (m) => { const u = await user(); await m(); return upload(`/users/${u}/profileimage`, pngBytes(4, 4), 'me.png', 'image/png'); } },
  'POST /users/:userId(^\\d+$)/alternateemails': { expect: ['USER', 'ADD_ALTERNATE_EMAIL'], run: async (m) => { const u = await user(); await api.post('/validateddomains', { domain: 'es.example' }); await m(); return api.post(`/users/${u}/alternateemails`, [{ email: `${uniq('alt')}@es.example` }]); } },
  'DELETE /users/:userId(^\\d+$)/alternateemails/:alternateEmailId': { expect: ['USER', 'REMOVE_ALTERNATE_EMAIL'], run: async (m) => { const u = await user(); await api.post('/validateddomains', { domain: 'es.example' }); const a = ok(await api.post(`/users/${u}/alternateemails`, [{ email: `${uniq('alt')}@es.example` }])).data[0].id; await m(); return api.del(`/users/${u}/alternateemails/${a}`); } },
  'POST /users/:userId(^\\d+$)/alternateemails/:alternateEmailId/makeprimary': { expect: ['USER', 'UPDATE_PRIMARY_EMAIL'], run: async (m) => { const u = await user(); await api.post('/validateddomains', { domain: 'es.example' }); await api.post('/validateddomains', { domain: 'example.com' }); const a = ok(await api.post(`/users/${u}/alternateemails`, [{ email: `${uniq('alt')}@es.example` }])).data[0].id; await m(); return api.post(`/users/${u}/alternateemails/${a}/makeprimary`); } },
  'POST /validateddomains': { expect: ['ACCOUNT', 'ADD_VALIDATED_DOMAIN'], run: async (m) => { await m(); return api.post('/validateddomains', { domain: `${uniq('d')}.example` }); } },
  'DELETE /validateddomains/:domain': { expect: ['ACCOUNT', 'REMOVE_VALIDATED_DOMAIN'], run: async (m) => { const d = `${uniq('d')}.example`; ok(await api.post('/validateddomains', { domain: d })); await m(); return api.del(`/validateddomains/${d}`); } },
  'POST /groups': { expect: ['GROUP', 'CREATE'], run: async (m) => { await m(); return api.post('/groups', { name: uniq('g ') }); } },
  'PUT /groups/:groupId': { expect: ['GROUP', 'RENAME'], run: async (m) => { const g = ok(await api.post('/groups', { name: uniq('g ') })).result.id; await m(); return api.put(`/groups/${g}`, { name: uniq('renamed g ') }); } },
  'DELETE /groups/:groupId': { expect: ['GROUP', 'DELETE'], run: async (m) => { const g = ok(await api.post('/groups', { name: uniq('g ') })).result.id; await m(); return api.del(`/groups/${g}`); } },
  'POST /groups/:groupId/members': { expect: ['GROUP', 'ADD_MEMBER'], run: async (m) => { const g = ok(await api.post('/groups', { name: uniq('g ') })).result.id; const u = await user(); await m(); return api.post(`/groups/${g}/members`, [{ id: u }]); } },
  'DELETE /groups/:groupId/members/:userId': { expect: ['GROUP', 'REMOVE_MEMBER'], run: async (m) => { const u = await user(); const g = ok(await api.post('/groups', { name: uniq('g '), members: [{ id: u }] })).result.id; await m(); return api.del(`/groups/${g}/members/${u}`); } },
  // webhooks
  'POST /webhooks': { expect: ['WEBHOOK', 'CREATE'], run: async (m) => { const s = await sheet(); await m(); return api.post('/webhooks', hookBody(s.id)); } },
  'PUT /webhooks/:webhookId': { expect: ['WEBHOOK', 'UPDATE'], run: async (m) => { const s = await sheet(); const h = ok(await api.post('/webhooks', hookBody(s.id))).result.id; await m(); return api.put(`/webhooks/${h}`, { name: 'renamed' }); } },
  'DELETE /webhooks/:webhookId': { expect: ['WEBHOOK', 'DELETE'], run: async (m) => { const s = await sheet(); const h = ok(await api.post('/webhooks', hookBody(s.id))).result.id; await m(); return api.del(`/webhooks/${h}`); } },
  'POST /webhooks/:webhookId/resetsharedsecret': { expect: ['WEBHOOK', 'RESET_SHARED_SECRET'], run: async (m) => { const s = await sheet(); const h = ok(await api.post('/webhooks', hookBody(s.id))).result.id; await m(); return api.post(`/webhooks/${h}/resetsharedsecret`); } },
  'POST /webhooks/:webhookId/resetSharedSecret': { expect: ['WEBHOOK', 'RESET_SHARED_SECRET'], run: async (m) => { const s = await sheet(); const h = ok(await api.post('/webhooks', hookBody(s.id))).result.id; await m(); return api.post(`/webhooks/${h}/resetSharedSecret`); } },
  'POST /sheetd/webhooks/:webhookId/deliveries/:deliveryId/replay': {
    expect: ['WEBHOOK', 'REPLAY'],
    run: async (m) => {
      const s = await sheet();
      const h = ok(await api.post('/webhooks', hookBody(s.id))).result.id;
      ok(await api.put(`/webhooks/${h}`, { enabled: true }));
      await rowsOf(s.id, s.col.Name!.id);
      await rx.waitFor(() => rx.callbacks(h).length > 0, 15_000, 'a callback');
      const d = ok(await api.get(`/sheetd/webhooks/${h}/deliveries`)).data.find((x: { kind: string }) => x.kind === 'EVENTS');
      await m();
      return api.post(`/sheetd/webhooks/${h}/deliveries/${d.id}/replay`);
    },
  },
};

/** Mutating routes that change nothing a client could be told about. */
const NO_CHANGE: Record<string, string> = {
  'POST /imageurls': 'hands out temporary URLs for images; nothing is stored that a reader sees',
  'DELETE /users/:userId(^\\d+$)/plans/:planId(^\\d+$)': 'always 403/1013: a user is on the organization\'s one plan while in it (Remove User takes them out)',
  'POST /sheetd/sheets/:sheetId/presence': 'reports which cell the caller has focused: presence lives in the processes (and Redis), never in the database or the change log',
};

/** Routes that need a flow this walk cannot make; the test named checks their events. */
const ELSEWHERE: Record<string, string> = {
  'POST /token': 'exchanges an authorization code or a refresh token; it needs the sign-in and consent pages, which test/api/oauth.test.ts drives',
  'POST /sheetd/approvals/:token': 'its token arrives only in an approval request mail; test/api/automation.test.ts decides one and reads the approval it writes into the row',
};

describe('events in the public vocabulary', () => {
  it('a row\'s change is an UPDATE of its sheet; a sort an UPDATE; sheetd\'s own name in additionalDetails.sheetdEvent', async () => {
    const s = await sheet();
    const pos = await position();
    const [r] = await rowsOf(s.id, s.col.Name!.id, 2);
    ok(await api.post(`/sheets/${s.id}/sort`, { sortCriteria: [{ columnId: s.col.Name!.id, direction: 'DESCENDING' }] }));
    const evs = await eventsAfter(pos);
    const row = evs.find((e) => e.additionalDetails?.sheetdEvent?.objectType === 'ROW');
    assert.ok(row, JSON.stringify(evs));
    assert.deepEqual([row.objectType, row.action, row.objectId], ['SHEET', 'UPDATE', s.id]);
    assert.deepEqual(row.additionalDetails!.sheetdEvent, { objectType: 'ROW', action: 'CREATE', objectId: r });
    const sort = evs.find((e) => e.additionalDetails?.sheetdEvent?.action === 'SORT');
    assert.ok(sort, JSON.stringify(evs));
    assert.deepEqual([sort.objectType, sort.action, sort.objectId], ['SHEET', 'UPDATE', s.id]);
    // a name the public service has stays as it is, without sheetdEvent
    const created = await api.post('/sheets', { name: uniq('public name '), columns: COLS });
    const after = await eventsAfter(pos);
    const made = after.find((e) => e.objectId === created.body.result.id && e.action === 'CREATE');
    assert.ok(made, JSON.stringify(after));
    assert.equal(made.objectType, 'SHEET');
    assert.equal(made.additionalDetails?.sheetdEvent, undefined);
  });
});

describe('every mutating route records its change event', () => {
  for (const [route, recipe] of Object.entries(R)) {
    it(`${route} records ${recipe.expect.join(' ')}`, async () => {
      let pos = '';
      const res = await recipe.run(async () => {
        pos = await position();
      });
      assert.ok(res.status === 200, `${res.status} ${res.text}`);
      const evs = await eventsAfter(pos);
      // what sheetd recorded: its own name where the public one is coarser (additionalDetails.sheetdEvent)
      const pairs = evs.map((e) => { const r = e.additionalDetails?.sheetdEvent ?? e; return `${r.objectType} ${r.action}`; });
      assert.ok(pairs.includes(recipe.expect.join(' ')), `expected ${recipe.expect.join(' ')}, got ${JSON.stringify(pairs)}`);
      // every event is named in the public vocabulary, the only one the SDKs read
      for (const e of evs) {
        assert.ok(PUBLIC_OBJECT_TYPES.includes(e.objectType), `objectType ${e.objectType} of ${JSON.stringify(e)}`);
        assert.ok(PUBLIC_ACTIONS.includes(e.action), `action ${e.action} of ${JSON.stringify(e)}`);
        assert.equal(typeof e.objectId, 'number', JSON.stringify(e));
      }
    });
  }

  it('the walk covers every mutating route the server registers', () => {
    // the API's routes (the pages at the root are forms for people, not API operations)
    const routes = [...new Set(t.server.app.routeTable.filter((r) => r.method !== 'GET' && r.url.startsWith('/2.0/')).map((r) => `${r.method} ${r.url.replace(/^\/2\.0/, '')}`))];
    const missing = routes.filter((r) => !(r in R) && !(r in NO_CHANGE) && !(r in ELSEWHERE));
    assert.deepEqual(missing, [], 'mutating routes without a recipe in test/api/event-stream.test.ts');
  });
});
