/**
 * The error catalogue, server-side failures a client cannot provoke: a folder or workspace copy
 * that fails part way (500/1119, with the top container in `detail`) keeps nothing. The failure
 * is injected into this file's own database (a trigger refusing one sheet's insert), so the file
 * needs a server of its own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { serverForFile } from '../helpers/setup.ts';
import { notInCluster } from '../helpers/server.ts';
import { refusedUnchanged } from '../helpers/refusals.ts';

const s = serverForFile();
const UNLUCKY = 'Unlucky copy';

/** From now on, inserting a sheet named UNLUCKY fails in the database; returns the undo. */
async function failSheetInserts(): Promise<() => Promise<void>> {
  const db = s.t.server.store.db;
  if (s.t.config.databaseUrl) {
    await sql.raw(`create function test_fail_sheet() returns trigger language plpgsql as $$
      begin if new.name = '${UNLUCKY}' then raise exception 'injected failure'; end if; return new; end $$`).execute(db);
    await sql.raw('create trigger test_fail_sheet before insert on sheets for each row execute function test_fail_sheet()').execute(db);
    return async () => {
      await sql.raw('drop trigger test_fail_sheet on sheets').execute(db);
      await sql.raw('drop function test_fail_sheet()').execute(db);
    };
  }
  await sql.raw(`create trigger test_fail_sheet before insert on sheets when new.name = '${UNLUCKY}'
    begin select raise(abort, 'injected failure'); end`).execute(db);
  return async () => {
    await sql.raw('drop trigger test_fail_sheet').execute(db);
  };
}

describe('copies that fail part way', { skip: notInCluster('injects a failure into its own database') }, () => {
  test('a folder copy that fails is 500/1119 naming the folder, and keeps nothing; without the failure it copies', async () => {
    const folder = await s.api.post('/home/folders', { name: 'Copied folder' });
    assert.equal(folder.status, 200, folder.text);
    const folderId = folder.body.result.id as number;
    for (const name of ['First', UNLUCKY]) {
      const made = await s.api.post(`/folders/${folderId}/sheets`, { name, columns: [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }] });
      assert.equal(made.status, 200, made.text);
    }
    const home = async () => ({ home: (await s.api.get('/folders/personal')).body, sheets: (await s.api.get('/sheets?includeAll=true')).body });
    const copy = () => s.api.post(`/folders/${folderId}/copy?include=data`, { destinationType: 'home', newName: 'The copy' });
    const undo = await failSheetInserts();
    let res;
    try {
      res = await refusedUnchanged(home, copy, 500, 1119);
    } finally {
      await undo();
    }
    assert.deepEqual(res.body.detail, { topContainerType: 'folder', topContainerId: folderId });
    const ok = await copy();
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.result.name, 'The copy');
  });

  test('a workspace copy that fails is 500/1119 naming the workspace, and keeps nothing', async () => {
    const ws = await s.api.post('/workspaces', { name: 'Copied workspace' });
    assert.equal(ws.status, 200, ws.text);
    const wsId = ws.body.result.id as number;
    const made = await s.api.post(`/workspaces/${wsId}/sheets`, { name: UNLUCKY, columns: [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }] });
    assert.equal(made.status, 200, made.text);
    const all = async () => ({ workspaces: (await s.api.get('/workspaces?includeAll=true')).body, sheets: (await s.api.get('/sheets?includeAll=true')).body });
    const undo = await failSheetInserts();
    let res;
    try {
      res = await refusedUnchanged(all, () => s.api.post(`/workspaces/${wsId}/copy?include=data`, { newName: 'Workspace copy' }), 500, 1119);
    } finally {
      await undo();
    }
    assert.deepEqual(res.body.detail, { topContainerType: 'workspace', topContainerId: wsId });
  });
});
