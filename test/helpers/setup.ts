import { after, before } from 'node:test';
import { startTestServer, type TestServer } from './server.ts';
import { client, type Client } from './http.ts';

/**
 * One server for the whole test file (started before its tests, closed after): `s.t` is the
 * server, `s.api` a client with the bootstrap admin's token.
 */
export function serverForFile(env: Record<string, string> = {}): { t: TestServer; api: Client } {
  const s = {} as { t: TestServer; api: Client };
  before(async () => {
    s.t = await startTestServer(env);
    s.api = client(s.t.base, s.t.adminToken);
  });
  after(() => s.t.close());
  return s;
}
