import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuiteServer, type TestServer } from '../helpers/server.ts';

interface Operation {
  summary: string;
  tags: string[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: { type: string } }>;
  security: Array<Record<string, string[]>>;
  responses: Record<string, unknown>;
}
interface Doc {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; flows?: { authorizationCode: { scopes: Record<string, string> } } }> };
}

let ts: TestServer;
let doc: Doc;
before(async () => {
  ts = await startSuiteServer();
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
