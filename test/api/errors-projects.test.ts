/**
 * The error catalogue, project sheets (dependencies enabled: the Project Plan template): the
 * schedule's columns keep their type (1085), stay (1098) and take no column formula (1305);
 * project settings are only a project sheet's (1143). Each with its status, code and message,
 * and nothing changed.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { serverForFile } from '../helpers/setup.ts';
import { makeSheet } from '../helpers/sheets.ts';
import { refusedUnchanged } from '../helpers/refusals.ts';

/** The Project Plan template (globalTemplate PROJECT_SHEET). */
const PROJECT_PLAN = 5816286846604928;
const s = serverForFile();
let project: { id: number; col: Record<string, { id: number; type: string }> };
const projectNow = async () => (await s.api.get(`/sheets/${project.id}?include=format`)).body;

describe('project sheets', () => {
  before(async () => {
    const made = await s.api.post('/sheets', { name: 'Schedule', fromId: PROJECT_PLAN });
    assert.equal(made.status, 200, made.text);
    project = { id: made.body.result.id, col: {} };
    const sheet = await projectNow();
    for (const c of sheet.columns as Array<{ id: number; title: string; type: string }>) project.col[c.title] = c;
    assert.equal(sheet.dependenciesEnabled, true);
  });

  test('changing the type of a schedule column is 400/1085', async () => {
    for (const title of ['Start', 'Duration', 'Predecessors']) {
      await refusedUnchanged(projectNow, () => s.api.put(`/sheets/${project.id}/columns/${project.col[title]!.id}`, { type: 'TEXT_NUMBER' }), 400, 1085);
    }
    // other changes to it, and other columns' types, are taken
    const renamed = await s.api.put(`/sheets/${project.id}/columns/${project.col.Finish!.id}`, { title: 'End' });
    assert.equal(renamed.status, 200, renamed.text);
    const retyped = await s.api.put(`/sheets/${project.id}/columns/${project.col.Comments!.id}`, { type: 'PICKLIST', options: ['a'] });
    assert.equal(retyped.status, 200, retyped.text);
  });

  test('deleting a schedule column is 400/1098', async () => {
    for (const title of ['Start', 'Duration', 'Predecessors']) {
      await refusedUnchanged(projectNow, () => s.api.del(`/sheets/${project.id}/columns/${project.col[title]!.id}`), 400, 1098);
    }
    const other = await s.api.del(`/sheets/${project.id}/columns/${project.col['% Complete']!.id}`);
    assert.equal(other.status, 200, other.text);
  });

  test('a column formula on a schedule column is 400/1305', async () => {
    await refusedUnchanged(projectNow, () => s.api.put(`/sheets/${project.id}/columns/${project.col.Duration!.id}`, { formula: '="2d"' }), 400, 1305);
    await refusedUnchanged(projectNow, () => s.api.put(`/sheets/${project.id}/columns/${project.col.Start!.id}`, { formula: '=TODAY()' }), 400, 1305);
  });

  test('project settings on a sheet without dependencies are 400/1143', async () => {
    const plain = await makeSheet(s.api, 'Not a project', [{ title: 'Name', type: 'TEXT_NUMBER', primary: true }]);
    const read = async () => (await s.api.get(`/sheets/${plain.id}`)).body;
    await refusedUnchanged(read, () => s.api.put(`/sheets/${plain.id}`, { projectSettings: { lengthOfDay: 6 } }), 400, 1143, 'projectSettings');
    await refusedUnchanged(read, () => s.api.put(`/sheets/${plain.id}`, { name: 'Renamed', projectSettings: { workingDays: ['MONDAY'] } }), 400, 1143, 'projectSettings');
    const ok = await s.api.put(`/sheets/${project.id}`, { projectSettings: { lengthOfDay: 6 } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.result.projectSettings.lengthOfDay, 6);
  });
});
