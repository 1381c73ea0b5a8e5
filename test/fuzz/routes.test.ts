/**
 * Fuzz of every route the running server registered: generated path ids, query strings,
 * headers and bodies (well-formed JSON with adversarial values, and raw text no JSON encoder
 * writes). No response may be a 5xx; every refusal is a catalogued Error object with the
 * catalogue's status; and a refused mutating request changes nothing in the database.
 *
 * SHEETD_FUZZ_SEED replays a run (the seed is printed on failure), SHEETD_FUZZ_RUNS sets the
 * number of requests per route, SHEETD_FUZZ_ROUTES narrows the routes, SHEETD_FUZZ_DEBUG=1
 * prints every request and its answer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { CATALOGUE } from '../../src/errors.ts';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { client, type Client } from '../helpers/http.ts';
import { makeSheet, makeUser } from '../helpers/sheets.ts';
import { jobsCreatedSince, snapshotDatabase, snapshotDiff } from '../helpers/snapshot.ts';
import { tokenFor } from '../helpers/tokens.ts';

const SEED = Number(process.env.SHEETD_FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.SHEETD_FUZZ_RUNS ?? 20);
const MUTATING = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

let t: TestServer;
let api: Client;
/** A second user of the organization, made anew with each dataset (the fuzz may remove one). */
let otherEmail = '';

/** Real ids by path parameter name, refreshed whenever a request may have removed one. */
let ids: Record<string, Array<string | number>> = {};

async function seed(n: number): Promise<void> {
  const ok = (r: { status: number; body: unknown }) => {
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body as { result: Record<string, unknown> & { id: number } }).result;
  };
  // the fuzz may have removed the validated domain: alternate emails need it
  const domain = await api.post('/validateddomains', { domain: 'example.org' });
  assert.ok(domain.status === 200 || domain.body?.errorCode === 1129, domain.text);
  otherEmail = `fuzz.other${n}@example.org`;
  const other = await makeUser(t, api, otherEmail);
  const s = await makeSheet(api, `Fuzz ${n}`, [
    { title: 'Name', type: 'TEXT_NUMBER', primary: true },
    { title: 'Due', type: 'DATE' },
    { title: 'Done', type: 'CHECKBOX' },
    { title: 'State', type: 'PICKLIST', options: ['A', 'B'] },
    { title: 'Who', type: 'CONTACT_LIST' },
    { title: 'Tags', type: 'MULTI_PICKLIST', options: ['x', 'y'] },
  ]);
  const src = await makeSheet(api, `Fuzz source ${n}`, [{ title: 'Key', type: 'TEXT_NUMBER', primary: true }]);
  const rows = ok(await api.post(`/sheets/${s.id}/rows`, [
    { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 'one' }, { columnId: s.col.Due!.id, value: '2024-01-02' }] },
    { toBottom: true, cells: [{ columnId: s.col.Name!.id, value: 2 }, { columnId: s.col.Done!.id, value: true }] },
  ])) as unknown as Array<{ id: number }>;
  const folder = ok(await api.post('/home/folders', { name: `Fuzz folder ${n}` }));
  const ws = ok(await api.post('/workspaces', { name: `Fuzz ws ${n}` }));
  const group = ok(await api.post('/groups', { name: `Fuzz group ${n}`, members: [{ email: otherEmail }] }));
  const share = ok(await api.post(`/sheets/${s.id}/shares`, { email: otherEmail, accessLevel: 'VIEWER' }));
  const wsShare = ok(await api.post(`/workspaces/${ws.id}/shares`, { email: otherEmail, accessLevel: 'EDITOR' }));
  const ref = ok(await api.post(`/sheets/${s.id}/crosssheetreferences`, { sourceSheetId: src.id, startColumnId: src.columns[0]!.id, endColumnId: src.columns[0]!.id }));
  const filter = ok(await api.post(`/sheetd/sheets/${s.id}/filters`, { name: `F${n}`, filterType: 'SHARED', query: { operator: 'AND', criteria: [{ columnId: s.col.Done!.id, operator: 'IS_CHECKED' }] } }));
  const report = ok(await api.post('/sheetd/reports', { name: `Fuzz report ${n}`, scope: { sheets: [{ id: s.id }], workspaces: [{ id: ws.id }] }, columns: [{ sheetNameColumn: true }, { title: 'Name', primary: true }, { title: 'State', type: 'PICKLIST' }], filters: { criteria: [{ column: { title: 'Done', type: 'CHECKBOX' }, operator: 'IS_CHECKED' }] } }));
  const reportShare = ok(await api.post(`/reports/${report.id}/shares`, { email: otherEmail, accessLevel: 'VIEWER' }));
  ok(await api.post('/favorites', { type: 'sheet', objectId: s.id }));
  const fields = ok(await api.post(`/sheets/${s.id}/summary/fields`, [{ title: 'Total', formula: '=SUM([Name]:[Name])' }, { title: 'Owner', type: 'CONTACT_LIST' }])) as unknown as Array<{ id: number }>;
  const alt = await api.post(`/users/${other.id}/alternateemails`, [{ email: `fuzz.alt${n}@example.org` }]);
  assert.equal(alt.status, 200, alt.text);
  const altId = (alt.body.data as Array<{ id: number }>)[0]!.id;
  const contacts = await api.get('/contacts');
  // a webhook whose verification fails at once (nothing listens on 127.0.0.1:443), so it has a delivery to replay
  const hook = ok(await api.post('/webhooks', { name: `Fuzz hook ${n}`, callbackUrl: 'https://127.0.0.1/hook', scope: 'sheet', scopeObjectId: s.id, events: ['*.*'], version: 1 }));
  assert.equal((await api.put(`/webhooks/${hook.id}`, { enabled: true })).status, 200);
  const deliveries = (await api.get(`/sheetd/webhooks/${hook.id}/deliveries`)).body.data as Array<{ id: number }>;
  ids = {
    sheetId: [s.id, src.id],
    id: [s.id, ws.id],
    rowId: rows.map((r) => r.id),
    columnId: s.columns.map((c) => c.id),
    shareId: [share.id as unknown as string, wsShare.id as unknown as string, reportShare.id as unknown as string],
    reportId: [report.id],
    refId: [ref.id],
    filterId: [filter.id],
    userId: [other.id],
    alternateEmailId: [altId],
    groupId: [group.id],
    contactId: (contacts.body?.data ?? []).map((c: { id: string }) => c.id),
    domain: ['example.org'],
    folderId: [folder.id],
    favoriteType: ['sheet', 'folder', 'workspace', 'sheets'],
    favoriteId: [s.id, folder.id],
    workspaceId: [ws.id],
    token: ['x'],
    webhookId: [hook.id],
    deliveryId: deliveries.map((d) => d.id),
    fieldId: fields.map((f) => f.id),
  };
}

before(async () => {
  t = await startSuiteServer({ SHEETD_RATE_LIMIT: '1000000' });
  api = client(t.base, t.adminToken);
  await seed(0);
});
after(() => t.close());

// ---- generators -------------------------------------------------------------------------

/** A raw JSON literal spliced into the encoded body: what JSON.stringify can never write. */
const RAW = '\u0001raw:';
const rawLiterals = fc.constantFrom('1e400', '-1e400', '-0', '1.5e300', '123456789012345678901234567890', '0.1e-400', '9223372036854775808', '18446744073709551616');

const nasty = fc.constantFrom<unknown>(
  null, true, false, 0, -1, 1, 1.5, -0.5, 2 ** 53, 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 1e308, Number.MIN_VALUE,
  '', ' ', 'x', '\ud83d\ude00', 'ï¿½', '%00', '../..', '=SUM(1,2)', '={x}',
  '2024-02-30', 'TRUE', 'NaN', 'Infinity', '1e400', '-1', '1.5', '9223372036854775808', 'x'.repeat(4001), 'y'.repeat(600),
  'a@b.c', 'nobody@example.org', 'admin@example.com', 'ADMIN', 'OWNER', 'VIEWER', 'EDITOR', 'EDITOR_SHARE', 'sheet', 'folder', 'workspace',
  'TEXT_NUMBER', 'DATE', 'CHECKBOX', 'PICKLIST', 'CONTACT_LIST', 'MULTI_PICKLIST', 'PREDECESSOR', 'AUTO_NUMBER', 'DURATION',
  [], {}, [null], [[]], [1], ['x'], [{}], { id: null }, { '': 1 }, JSON.parse('{"__proto__":1}'), { constructor: 1 },
);

/** An id-shaped value: a real id of the dataset, a near miss, or an impossible number. */
const idLike = fc.oneof(
  fc.constant(null).chain(() => fc.constantFrom(...Object.values(ids).flat())),
  fc.constant(null).chain(() => fc.constantFrom(...Object.values(ids).flat().filter((v): v is number => typeof v === 'number').flatMap((v) => [v + 1, -v, v + 0.5, String(v)]))),
  rawLiterals.map((r) => RAW + r),
  fc.constantFrom<unknown>(0, -1, 1.5, 2 ** 53, 2 ** 63, 1e21, '12', 'abc', null, true, [], {}),
);

/** Text no database stores; rare, so that most bodies get past the check for it. */
const badText = fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udc00', '\udfff\ud800');

const scalar = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null).map(() => otherEmail) },
  { weight: 1, arbitrary: badText },
  { weight: 8, arbitrary: nasty },
  { weight: 3, arbitrary: idLike },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })) },
  { weight: 1, arbitrary: rawLiterals.map((r) => RAW + r) },
);

/** Attribute names of the API's objects: a generated object is made of these most of the time. */
const ATTRS = [
  'id', 'name', 'title', 'type', 'index', 'primary', 'hidden', 'locked', 'width', 'description', 'options', 'symbol',
  'systemColumnType', 'autoNumberFormat', 'validation', 'format', 'formula', 'columns', 'cells', 'columnId', 'value',
  'objectValue', 'displayValue', 'strict', 'hyperlink', 'linkInFromCell', 'url', 'sheetId', 'reportId', 'rowId', 'parentId',
  'siblingId', 'toTop', 'toBottom', 'above', 'expanded', 'rows', 'rowIds', 'email', 'emails', 'members', 'accessLevel',
  'userId', 'groupId', 'ownerId', 'objectId', 'message', 'subject', 'ccMe', 'sendEmail', 'to', 'destinationType',
  'destinationId', 'newName', 'firstName', 'lastName', 'admin', 'licensedSheetCreator', 'groupAdmin', 'resourceViewer',
  'sortCriteria', 'direction', 'sourceSheetId', 'startRowId', 'endRowId', 'startColumnId', 'endColumnId', 'filterType',
  'query', 'criteria', 'operator', 'values', 'includeParent', 'excludeSelected', 'applied', 'rules', 'domain', 'imageId',
  'height', 'altText', 'contactOptions', 'overrideValidation', 'scope', 'includes', 'profileImage', 'status', 'settings',
  'projectSettings', 'userSettings', 'permalink', 'favoriteType', 'share', 'shares', 'objectType', 'nonWorkingDays',
];

const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; obj: Record<string, unknown>; arr: unknown[] }>((tie) => ({
  value: fc.oneof({ maxDepth: 3, depthSize: 'small' }, scalar, tie('obj'), tie('arr')),
  obj: fc.dictionary(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ATTRS) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) }), tie('value'), { maxKeys: 5 }),
  arr: fc.array(tie('value'), { maxLength: 4 }),
})).value;

/** An element of a bulk body: mostly the resource, often something else ([null], [1], [[]]). */
const stray = fc.constantFrom<unknown>(null, null, null, 1, 'x', true, [], [null], {});
const element = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: a }, { weight: 1, arbitrary: stray });
/** One resource or a bulk array of them, the way bulk endpoints take them. */
const bulk = <T>(a: fc.Arbitrary<T>) => fc.oneof(a, fc.array(element(a), { minLength: 1, maxLength: 3 }), fc.array(stray, { minLength: 1, maxLength: 2 }));
/** A value the attribute accepts most of the time, and anything at all otherwise. */
const v = (...good: unknown[]) => fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: scalar });
/** A real id of the dataset under this name most of the time, any id-like value otherwise. */
const realId = (name: string) => fc.oneof({ weight: 2, arbitrary: fc.constant(null).chain(() => fc.constantFrom(...(ids[name] ?? [1]))) }, { weight: 1, arbitrary: idLike });
const links = fc.record({ sheetId: realId('sheetId'), rowId: idLike, columnId: idLike, url: v('https://example.org/x') }, { requiredKeys: [] });
const cell = fc.record({ columnId: realId('columnId'), value: v('x', 1, true, '2024-01-02', 'A'), objectValue: json, strict: v(true, false), hyperlink: fc.oneof(links, scalar), linkInFromCell: fc.oneof(links, scalar), formula: v('=1+1', '=SUM([Name]:[Name])'), image: json }, { requiredKeys: ['columnId'] });
const row = fc.record({ id: realId('rowId'), cells: fc.oneof({ weight: 3, arbitrary: fc.array(element(cell), { maxLength: 3 }) }, { weight: 1, arbitrary: scalar }), toTop: v(true), toBottom: v(true), parentId: realId('rowId'), siblingId: realId('rowId'), above: v(true, false), expanded: v(true, false), locked: v(true, false), format: scalar }, { requiredKeys: [] });
const column = fc.record({ title: v('New', 'Other'), type: v('TEXT_NUMBER', 'DATE', 'CHECKBOX', 'PICKLIST', 'CONTACT_LIST', 'MULTI_PICKLIST'), index: v(0, 1, 3), options: fc.oneof(fc.array(scalar, { maxLength: 3 }), json), symbol: scalar, primary: scalar, formula: scalar, systemColumnType: scalar, width: v(50), validation: v(true), contactOptions: json, autoNumberFormat: json, format: scalar, locked: scalar, hidden: scalar, description: v('d') }, { requiredKeys: [] });
const share = fc.record({ email: fc.oneof(fc.constant(null).map(() => otherEmail), scalar), groupId: realId('groupId'), userId: realId('userId'), accessLevel: v('VIEWER', 'EDITOR', 'ADMIN', 'OWNER', 'COMMENTER'), subject: scalar, message: scalar, ccMe: scalar, scope: scalar, type: scalar }, { requiredKeys: [] });
const member = fc.record({ email: fc.oneof(fc.constant(null).map(() => otherEmail), scalar), id: realId('userId') }, { requiredKeys: [] });

/**
 * Bodies shaped like the resources of each family (by the route's last literal segment), so
 * that the fuzz gets past the first check and reaches the rules behind it.
 */
const FAMILIES: Record<string, fc.Arbitrary<unknown>> = {
  rows: bulk(row),
  columns: bulk(column),
  shares: bulk(share),
  members: bulk(member),
  groups: fc.record({ name: scalar, members: fc.oneof(fc.array(element(member), { maxLength: 3 }), scalar), ownerId: idLike, description: scalar }, { requiredKeys: [] }),
  alternateemails: bulk(fc.record({ email: scalar }, { requiredKeys: [] })),
  favorites: bulk(fc.record({ type: scalar, objectId: idLike }, { requiredKeys: [] })),
  imageurls: fc.array(element(fc.record({ imageId: scalar, height: scalar, width: scalar }, { requiredKeys: [] })), { maxLength: 2 }),
  copy: fc.record({ destinationType: scalar, destinationId: idLike, newName: scalar, rowIds: fc.oneof(fc.array(idLike, { maxLength: 3 }), scalar), to: fc.oneof(fc.record({ sheetId: idLike }), scalar) }, { requiredKeys: [] }),
  sort: fc.record({ sortCriteria: fc.oneof(fc.array(element(fc.record({ columnId: idLike, direction: scalar }, { requiredKeys: [] })), { maxLength: 2 }), scalar) }, { requiredKeys: [] }),
  crosssheetreferences: fc.record({ name: scalar, sourceSheetId: idLike, startRowId: idLike, endRowId: idLike, startColumnId: idLike, endColumnId: idLike }, { requiredKeys: [] }),
  filters: fc.record({ name: scalar, filterType: scalar, applied: scalar, excludeSelected: scalar, query: fc.oneof(fc.record({ operator: scalar, criteria: fc.oneof(fc.array(element(fc.record({ columnId: idLike, operator: scalar, values: json }, { requiredKeys: [] })), { maxLength: 2 }), scalar), includeParent: scalar }, { requiredKeys: [] }), scalar) }, { requiredKeys: [] }),
  conditionalformats: fc.record({ rules: fc.oneof(fc.array(element(fc.record({ query: json, format: scalar, id: idLike }, { requiredKeys: [] })), { maxLength: 2 }), scalar) }, { requiredKeys: [] }),
  users: fc.record({ email: scalar, firstName: scalar, lastName: scalar, admin: scalar, licensedSheetCreator: scalar, groupAdmin: scalar, resourceViewer: scalar }, { requiredKeys: [] }),
  sheets: fc.record({ name: scalar, fromId: idLike, columns: fc.oneof(fc.array(element(column), { maxLength: 3 }), scalar), settings: json, projectSettings: json, userSettings: json }, { requiredKeys: [] }),
  folders: fc.record({ name: scalar }, { requiredKeys: [] }),
  validateddomains: fc.record({ domain: scalar }, { requiredKeys: [] }),
};
const columnRef = fc.record({ title: v('Name', 'State', 'Done'), type: v('TEXT_NUMBER', 'PICKLIST', 'CHECKBOX'), primary: scalar, sheetNameColumn: scalar, systemColumnType: scalar }, { requiredKeys: [] });
const criterion = fc.record({ column: fc.oneof(columnRef, scalar), operator: v('EQUAL', 'IS_CHECKED', 'CONTAINS'), values: json }, { requiredKeys: [] });
FAMILIES.reports = fc.record({
  name: scalar, destinationType: scalar, destinationId: idLike,
  scope: fc.oneof(fc.record({ sheets: fc.oneof(fc.array(element(fc.record({ id: idLike })), { maxLength: 2 }), scalar), workspaces: fc.oneof(fc.array(idLike, { maxLength: 2 }), scalar) }, { requiredKeys: [] }), scalar),
  columns: fc.oneof(fc.array(element(columnRef), { maxLength: 3 }), scalar),
  filters: fc.oneof(fc.record({ operator: scalar, criteria: fc.oneof(fc.array(element(criterion), { maxLength: 2 }), scalar), nestedCriteria: json }, { requiredKeys: [] }), scalar),
  sortingCriteria: fc.oneof(fc.array(element(fc.record({ column: fc.oneof(columnRef, scalar), sortingDirection: scalar }, { requiredKeys: [] })), { maxLength: 2 }), scalar),
}, { requiredKeys: [] });
FAMILIES.emails = fc.record({ sendTo: fc.oneof(fc.array(element(fc.record({ email: scalar, groupId: realId('groupId') }, { requiredKeys: [] })), { maxLength: 2 }), scalar), subject: scalar, message: scalar, ccMe: scalar, format: v('EXCEL', 'PDF', 'PDF_GANTT') }, { requiredKeys: [] });
FAMILIES.move = FAMILIES.copy!;
FAMILIES.workspaces = FAMILIES.folders!;
FAMILIES.cellimages = fc.record({ altText: scalar }, { requiredKeys: [] });

/** The family of a route: its last literal segment (/sheets/:id/rows/:rowId -> rows). */
function familyOf(url: string): fc.Arbitrary<unknown> {
  const literal = url.split('/').filter((p) => p !== '' && !p.startsWith(':') && p !== '2.0');
  for (const p of literal.reverse()) if (FAMILIES[p]) return FAMILIES[p];
  return json;
}

/** The body as sent: encoded JSON (raw literals spliced in), raw text, or nothing. */
const bodyFor = (url: string): fc.Arbitrary<string | undefined> => fc.oneof(
  { weight: 6, arbitrary: familyOf(url).map(encode) },
  { weight: 2, arbitrary: json.map(encode) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, '', ' ', 'null', '[', '{"a":', '{"a":1}x', '"\\ud800"', '{"name":"\\u0000"}', '[1e400]', '{"__proto__":{"x":1}}', '\ufeff{}', '{"a":1,"a":2}', '[null]', '[[]]', '{}', '[]') },
);

function encode(v: unknown): string {
  return JSON.stringify(v).replace(/"\\u0001raw:([^"]*)"/g, '$1');
}

const pathValue = (name: string) => fc.oneof(
  { weight: 12, arbitrary: fc.constant(null).chain(() => fc.constantFrom(...(ids[name] ?? ['1']).map(String))) },
  { weight: 3, arbitrary: fc.constantFrom('0', '-1', '1.5', '1e400', '9223372036854775808', '18446744073709551616', '99999999999999999999', '9007199254740993', '1099511627776', 'abc', '%00', '%ED%A0%80', '%F0%9F%98%80', 'me', 'true', ' 1', '0x10', '1%2C2') },
  { weight: 1, arbitrary: fc.constant(null).chain(() => fc.constantFrom(...(ids[name] ?? [1]).filter((v): v is number => typeof v === 'number').flatMap((v) => [String(v + 1), String(v) + '0', `${v}.0`]).concat(['2']))) },
);

const QUERY_KEYS = ['include', 'exclude', 'includeAll', 'page', 'pageSize', 'level', 'numericDates', 'rowIds', 'columnIds', 'accessApiLevel', 'sendEmail', 'allowPartialSuccess', 'overrideValidation', 'ignoreRowsNotFound', 'since', 'to', 'modifiedSince', 'transferTo', 'transferSheets', 'removeFromSharing', 'email', 'userId', 'skipRemap', 'include_all', 'sharingInclude', 'query', 'scopes', 'location'];
const queryValue = fc.oneof(
  fc.constantFrom('true', 'false', '0', '1', '-1', '1.5', '1e400', '9223372036854775808', '', 'abc', 'format,objectValue', 'all', 'attachments,discussions,filters,rowPermalink,writerInfo', '%00', '%ED%A0%80', 'a%00b', '2024-01-01T00:00:00Z', 'nobody%40example.org', '%'),
  fc.constant(null).chain(() => fc.constantFrom(...Object.values(ids).flat().map(String))),
  fc.string({ unit: 'grapheme-ascii', maxLength: 8 }).map(encodeURIComponent),
);
const query = fc.oneof({ weight: 2, arbitrary: fc.constant([] as Array<[string, string]>) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), queryValue), { minLength: 1, maxLength: 3 }) }).map((pairs) => (pairs.length === 0 ? '' : '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&')));

const oddHeaders = fc.record({
  'content-type': fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/JSON', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'image/png', ';;', 'application/json;', ''),
  accept: fc.constantFrom('application/json', '*/*', 'text/csv', 'application/vnd.ms-excel', 'application/pdf', 'image/*', 'text/html;q=0', 'x;;q=zz', ''),
  'assume-user': fc.oneof(fc.constant(null).map(() => otherEmail), fc.constant(null).map(() => encodeURIComponent(otherEmail)), fc.constantFrom('nobody@example.org', '%00', 'a%00b@example.org', '%ED%A0%80', '%', 'admin@example.com', '')),
}, { requiredKeys: [] });
/** Mostly the headers a client sends, so that most requests get past the edge to the service. */
const headers = fc.oneof({ weight: 6, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: oddHeaders });

// ---- the property -----------------------------------------------------------------------

interface Outcome { status: number; text: string }

async function send(method: string, url: string, h: Record<string, string>, b: string | undefined, token = t.adminToken): Promise<Outcome> {
  const hs: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...h };
  if (b === undefined) delete hs['content-type'];
  const res = await fetch(t.base + url, { method, headers: hs, body: method === 'GET' || method === 'HEAD' ? undefined : b });
  if (res.ok && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    // a change stream that opened stays open (reading it to its end waited for ever): it opened
    await res.body?.cancel();
    return { status: res.status, text: '' };
  }
  return { status: res.status, text: await res.text() };
}

function assertCatalogued(o: Outcome, what: string): void {
  assert.ok(o.status < 500, `${what} -> ${o.status} ${o.text.slice(0, 300)}`);
  if (o.status < 400) return;
  let e: { errorCode?: unknown; message?: unknown; refId?: unknown };
  try {
    e = JSON.parse(o.text);
  } catch {
    assert.fail(`${what} -> ${o.status} with a body that is not JSON: ${o.text.slice(0, 200)}`);
  }
  assert.equal(typeof e.errorCode, 'number', `${what}: ${o.text}`);
  const entry = CATALOGUE[e.errorCode as number];
  assert.ok(entry, `${what}: errorCode ${String(e.errorCode)} is not in the catalogue`);
  assert.equal(o.status, entry[0], `${what}: status ${o.status} for errorCode ${String(e.errorCode)}`);
  assert.equal(typeof e.message, 'string', what);
  assert.equal(typeof e.refId, 'string', what);
}

/** SHEETD_FUZZ_ROUTES=columns,rows fuzzes only the routes whose path contains one of these. */
const ONLY = (process.env.SHEETD_FUZZ_ROUTES ?? '').split(',').filter(Boolean);
const routes = () => t.server.app.routeTable.filter((r) => r.url.startsWith('/2.0/'));
const fuzzed = () => routes().filter((r) => ONLY.length === 0 || ONLY.some((o) => r.url.includes(o)));

let state = '';
let dirty = true;
let seeds = 0;

test('the table of routes covers the API', () => {
  const urls = new Set(routes().map((r) => `${r.method} ${r.url}`));
  // a few of each family: the fuzz below walks whatever is registered
  for (const u of ['POST /2.0/sheets/:sheetId/columns', 'PUT /2.0/sheets/:sheetId/rows', 'POST /2.0/groups/:groupId/members', 'POST /2.0/shares']) assert.ok(urls.has(u), u);
});

test(`no input breaks any route (seed ${SEED}, ${RUNS} runs per route)`, async (tt) => {
  for (const r of fuzzed()) {
    await tt.test(`${r.method} ${r.url}`, async () => {
      if (dirty) {
        await seed(++seeds);
        state = await snapshotDatabase(t.server.store);
        dirty = false;
      }
      const names = [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      const params = fc.tuple(...names.map((n) => pathValue(n)));
      const prop = fc.asyncProperty(params, query, headers, bodyFor(r.url), async (values, q, h, b) => {
        let i = 0;
        const url = r.url.slice('/2.0'.length).replace(/:(\w+)(\([^)]*\))?/g, () => values[i++]!) + q;
        const what = `${r.method} ${url} body=${b === undefined ? '(none)' : b.slice(0, 300)} headers=${JSON.stringify(h)}`;
        // Revoke Access Token revokes the token it is called with: give it one of its own
        let token = t.adminToken;
        if (r.method === 'DELETE' && r.url === '/2.0/token') {
          token = await tokenFor(t, t.config.adminEmail, { name: 'fuzz' });
          state = await snapshotDatabase(t.server.store);
        }
        const sentAt = Date.now();
        const o = await send(r.method, url, h, b, token);
        if (process.env.SHEETD_FUZZ_DEBUG) console.log(`${o.status} ${o.text.slice(0, 120)} <- ${what.slice(0, 300)}`);
        assertCatalogued(o, what);
        if (!MUTATING.has(r.method)) return;
        if (o.status < 300) {
          dirty = true;
          state = await snapshotDatabase(t.server.store);
          return;
        }
        const now = await snapshotDatabase(t.server.store);
        assert.ok(now === state, `${what} -> ${o.status} ${o.text.slice(0, 200)} changed the database:\n${snapshotDiff(state, now)}`);
        assert.equal(await jobsCreatedSince(t.server.store, sentAt), 0, `${what} -> ${o.status} created a job`);
      });
      await fc.assert(prop, { seed: SEED + seeds, numRuns: RUNS, endOnFailure: true, reporter: (d) => {
        if (d.failed) throw new Error(`fuzz failed (replay with SHEETD_FUZZ_SEED=${SEED}): ${(d.errorInstance as Error | undefined)?.message}\n${fc.defaultReportMessage(d)}`);
      } });
    });
  }
});
