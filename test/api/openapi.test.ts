import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { validate } from '@readme/openapi-parser';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';
import { UNDESCRIBED } from '../../src/http/openapi/extensions.ts';

interface Schema { [k: string]: unknown }
interface Operation {
  summary: string;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  tags: string[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: { type: string } }>;
  security: Array<Record<string, string[]>>;
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Doc {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, { type: string; flows?: { authorizationCode: { scopes: Record<string, string> } } }> };
}

let ts: TestServer;
let doc: Doc;
before(async () => {
  // test mode on: its controls are operations too, and are described like the others
  ts = await startSuiteServer({ SHEETD_TEST_MODE: 'true' });
  const r = await fetch(`${ts.base}/openapi.json`);
  assert.equal(r.status, 200, 'served without a token');
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  doc = (await r.json()) as Doc;
});
after(async () => ts.close());

/** '/2.0/users/:userId(^\\d+$)' -> '/users/{userId}' */
function asOpenApi(url: string): string {
  return url.slice('/2.0'.length).replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}');
}

test('an OpenAPI 3.1 document whose server is this sheetd\'s API base', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.servers[0]!.url, ts.base);
  assert.equal(doc.components.securitySchemes.APIToken!.type, 'http');
  assert.ok(doc.components.securitySchemes.OAuth2!.flows!.authorizationCode.scopes.READ_SHEETS);
});

test('every route registered under /2.0 is in the document with its method and path parameters, and nothing else is', () => {
  const registered = new Set<string>();
  for (const { method, url } of ts.server.app.routeTable) {
    if (!url.startsWith('/2.0/')) continue;
    const path = asOpenApi(url);
    registered.add(`${method} ${path}`);
    const op = doc.paths[path]?.[method.toLowerCase()];
    assert.ok(op, `${method} ${path} is documented`);
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const inPath = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
    assert.deepEqual(inPath.sort(), names.sort(), `${method} ${path} declares its path parameters`);
  }
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) assert.ok(registered.has(`${method.toUpperCase()} ${path}`), `${method} ${path} is a registered route`);
  }
  assert.equal(doc.paths['/health'], undefined, 'pages and probes are not API operations');
});

test('operations carry their name, group, query parameters, scope and the Error object', () => {
  const getSheet = doc.paths['/sheets/{sheetId}']!.get!;
  assert.equal(getSheet.summary, 'Get Sheet');
  assert.deepEqual(getSheet.tags, ['sheets']);
  const query = Object.fromEntries((getSheet.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.schema.type]));
  assert.equal(query.include, 'string');
  assert.equal(query.level, 'integer');
  assert.equal(query.pageSize, 'integer');
  assert.deepEqual(getSheet.security, [{ APIToken: [] }, { OAuth2: ['READ_SHEETS'] }]);
  assert.ok(getSheet.responses.default, 'failures are described');
  const sheetId = getSheet.parameters!.find((p) => p.in === 'path')!;
  assert.deepEqual([sheetId.name, sheetId.required, sheetId.schema.type], ['sheetId', true, 'integer']);

  assert.equal(doc.paths['/users/me']!.get!.summary, 'Get Current User');
  assert.deepEqual(doc.paths['/serverinfo']!.get!.security, [], 'a public operation needs no token');
  assert.equal(doc.paths['/home']!.get!.summary, 'List Contents', 'SDK-only operations are named too');
});

test('the document lists the query parameters of list operations', () => {
  const listSheets = doc.paths['/sheets']!.get!;
  const names = (listSheets.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  for (const n of ['include', 'includeAll', 'page', 'pageSize', 'modifiedSince']) assert.ok(names.includes(n), n);
  const bool = listSheets.parameters!.find((p) => p.name === 'includeAll')!;
  assert.equal(bool.schema.type, 'boolean');
});

test('a browsable reference at /docs, without a token, reads the same document', async () => {
  const page = await fetch(`${ts.url}/docs`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  assert.match(html, /swagger-ui/);
  const scripts = [...html.matchAll(/src="([^"]+\.js)"/g)].map((m) => m[1]!);
  assert.ok(scripts.length > 0);
  for (const src of scripts) {
    const js = await fetch(new URL(src, `${ts.url}/docs/`));
    assert.equal(js.status, 200, `${src} is served`);
    await js.arrayBuffer();
  }
  const json = await fetch(`${ts.url}/docs/json`);
  assert.deepEqual(await json.json(), doc);
});

test('/docs shows sheetd\'s name: the page title, the top bar\'s logo and the favicon', async () => {
  const html = await (await fetch(`${ts.url}/docs`)).text();
  assert.match(html, /<title>sheetd API reference<\/title>/);
  assert.doesNotMatch(html, /Swagger UI<\/title>|favicon-32x32\.png/, 'not the framework\'s title or icon');
  const icon = html.match(/<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/);
  assert.ok(icon, 'an SVG favicon');
  const fav = await fetch(new URL(icon[1]!, `${ts.url}/docs/`));
  assert.equal(fav.status, 200);
  assert.match(fav.headers.get('content-type') ?? '', /^image\/svg\+xml/);
  assert.match(await fav.text(), /^<svg /);
  // the top bar's logo is replaced by the initializer with an image of sheetd's name
  const init = await (await fetch(`${ts.url}/docs/static/swagger-initializer.js`)).text();
  const logo = init.match(/img\.src = 'data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)'/);
  assert.ok(logo, 'the logo is replaced');
  const svg = Buffer.from(logo[1]!, 'base64').toString('utf8');
  assert.match(svg, /<text[^>]*>sheetd<\/text>/);
  assert.match(svg, /aria-label="sheetd"/);
});

test('a validator of OpenAPI documents accepts the served document, every $ref resolving', async () => {
  const r = await validate(structuredClone(doc) as never);
  assert.deepEqual(r.valid ? [] : r.errors.map((e) => e.message), []);
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
  assert.ok(refs.length > 100, 'bodies name the component schemas');
  for (const m of refs) {
    const name = m.slice('"$ref":"#/components/schemas/'.length, -1);
    assert.ok(doc.components.schemas[name], `${m} names a component`);
  }
});

test('every operation has its response schemas, and its request body schema where it takes one; the exceptions are listed and reported', (t) => {
  const exceptions = new Set(Object.keys(UNDESCRIBED));
  const missing: string[] = [];
  for (const { method, url, body } of ts.server.app.routeTable) {
    if (!url.startsWith('/2.0/')) continue;
    const key = `${method} ${asOpenApi(url)}`;
    const op = doc.paths[asOpenApi(url)]![method.toLowerCase()]!;
    const error = op.responses.default?.content?.['application/json']?.schema;
    assert.deepEqual(error, { $ref: '#/components/schemas/Error' }, `${key}: a failure answers the Error object`);
    const success = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
    const described = success.length > 0 && success.every(([, r]) => r.content && Object.values(r.content).every((c) => c.schema && Object.keys(c.schema).length > 0));
    if (exceptions.has(key)) {
      assert.ok(!described, `${key} is described now: take it off UNDESCRIBED`);
      missing.push(key);
      continue;
    }
    assert.ok(described, `${key} has a schema for its success answer (or is listed in UNDESCRIBED with a reason)`);
    if (body === 'required') {
      const content = op.requestBody?.content ?? {};
      assert.ok(Object.keys(content).length > 0, `${key} takes a body: its request body is described`);
      for (const [type, c] of Object.entries(content)) assert.ok(c.schema && Object.keys(c.schema).length > 0, `${key} ${type} has a schema`);
    }
  }
  for (const key of exceptions) assert.ok(ts.server.app.routeTable.some((r) => `${r.method} ${asOpenApi(r.url)}` === key), `UNDESCRIBED names a route: ${key}`);
  t.diagnostic(missing.length === 0 ? 'every operation is described' : `operations not described yet (UNDESCRIBED): ${missing.join(', ')}`);
});

test('bodies in the document: JSON and multipart requests, results and pages', () => {
  const addRows = doc.paths['/sheets/{sheetId}/rows']!.post!;
  assert.ok(addRows.requestBody!.content['application/json']!.schema);
  const attach = doc.paths['/sheets/{sheetId}/attachments']!.post!;
  assert.deepEqual(Object.keys(attach.requestBody!.content).sort(), ['application/json', 'application/octet-stream', 'multipart/form-data']);
  const getSheet = doc.paths['/sheets/{sheetId}']!.get!;
  assert.ok(getSheet.responses['200']!.content!['application/json']!.schema);
  assert.ok(doc.components.schemas.Sheet && doc.components.schemas.Row && doc.components.schemas.IndexResult);
  assert.deepEqual((doc.components.schemas.Error as { required: string[] }).required, ['errorCode', 'message']);
  const filters = doc.paths['/sheetd/sheets/{sheetId}/filters']!.get!;
  assert.ok(filters.responses['200']!.content!['application/json']!.schema, 'the extensions are described too');
});
