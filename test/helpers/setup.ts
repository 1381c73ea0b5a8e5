import { after, before } from 'node:test';
import { startSuiteServer, type TestServer } from './server.ts';
import { client, type Client } from './http.ts';

/**
 * One server for the whole test file (started before its tests, closed after): `s.t` is the
 * server, `s.api` a client with the bootstrap admin's token.
 */
export function serverForFile(env: Record<string, string> = {}): { t: TestServer; api: Client } {
  const s = {} as { t: TestServer; api: Client };
  before(async () => {
    s.t = await startSuiteServer(env);
    s.api = client(s.t.base, s.t.adminToken);
  });
  after(() => s.t.close());
  return s;
}

/**
 * Closes what a test file started, in order, each even when one before it failed or was never
 * started (undefined): a receiver or mail server left open keeps the file's process alive for
 * ever. The first failure is thrown once all have been tried.
 */
export async function closeAll(...closers: Array<(() => unknown) | undefined>): Promise<void> {
  let failure: unknown;
  for (const close of closers) {
    try {
      await close?.();
    } catch (e) {
      failure ??= e;
    }
  }
  if (failure !== undefined) throw failure;
}
