import assert from 'node:assert/strict';
import { CATALOGUE, formatMessage } from '../../src/errors.ts';
import type { Res } from './http.ts';

/**
 * The catalogued refusal: this status and errorCode, and the catalogue's message for the code
 * with these arguments filled in (test/api/errors-*.test.ts).
 */
export function assertRefusal(res: Res, status: number, code: number, ...args: unknown[]): void {
  const body = res.body as { errorCode?: number; message?: string; refId?: string } | undefined;
  assert.equal(res.status, status, res.text);
  assert.equal(body?.errorCode, code, res.text);
  const entry = CATALOGUE[code];
  assert.ok(entry, `${code} is not catalogued`);
  assert.equal(body?.message, formatMessage(entry[1], args), res.text);
  assert.equal(typeof body?.refId, 'string', res.text);
}

/**
 * Sends a request that must be refused and asserts that it changed nothing a client can see:
 * `read` (one or more GETs) answers the same before and after.
 */
export async function refusedUnchanged(
  read: () => Promise<unknown>,
  send: () => Promise<Res>,
  status: number,
  code: number,
  ...args: unknown[]
): Promise<Res> {
  const before = JSON.stringify(await read());
  const res = await send();
  assertRefusal(res, status, code, ...args);
  assert.equal(JSON.stringify(await read()), before, `the refused request (${code}) changed what it must not`);
  return res;
}
