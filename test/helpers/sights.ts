import assert from 'node:assert/strict';
import type { Client } from './http.ts';
import { makeSheet } from './sheets.ts';

/** The columns of the dashboard tests' sheets: Task (primary) and Points. */
export const TASK_POINTS = [
  { title: 'Task', type: 'TEXT_NUMBER', primary: true },
  { title: 'Points', type: 'TEXT_NUMBER' },
];

/** Adds rows (task, points) at the bottom of a sheet with Task and Points columns; their ids in order. */
export async function addTaskPointsRows(api: Client, sh: { id: number; col: Record<string, { id: number } | undefined> }, rows: Array<[string, number]>): Promise<number[]> {
  const res = await api.post(`/sheets/${sh.id}/rows`, rows.map(([task, points]) => ({ toBottom: true, cells: [{ columnId: sh.col.Task!.id, value: task }, { columnId: sh.col.Points!.id, value: points }] })));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.result as Array<{ id: number }>).map((r) => r.id);
}

/** A Task/Points sheet with these rows (task, points), its columns by title and its row ids in order. */
export async function taskPointsSheet(api: Client, name: string, rows: Array<[string, number]>) {
  const sh = await makeSheet(api, name, TASK_POINTS);
  return { ...sh, rowIds: await addTaskPointsRows(api, sh, rows) };
}

/** A dashboard's widgets as Get Dashboard shows them to `api`'s user. */
export async function dashboardWidgets<W = Record<string, unknown>>(api: Client, id: number): Promise<W[]> {
  const res = await api.get(`/sights/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.widgets as W[];
}
