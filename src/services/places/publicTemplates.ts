import type { Insertable } from 'kysely';
import type { StoredRowCells, StoredValue } from '../../engine/cells.ts';
import { KEY_STEP } from '../../engine/sortKeys.ts';
import { newIds } from '../../ids.ts';
import type { Queryable } from '../../store/db.ts';
import type { RowTable } from '../../store/schema.ts';
import { insertRowRecords, updateSheet, type SheetRow } from '../../store/sheets.ts';
import type { Actor } from '../platform/context.ts';
import { createSheetFromColumnsIn, type SheetContainer } from '../sheets/sheetCreation.ts';
import { clock } from '../../clock.ts';
import { WorkCalendar } from '../../engine/calendar.ts';
import { projectColumnsOf, scheduleProject } from '../../engine/schedule.ts';

/**
 * The public templates sheetd ships (List Public Templates; Create Sheet with `fromId`). They are
 * data, not rows of any organization: a sheet made from one gets the template's columns, and with
 * include=data its sample rows. Their ids are fixed (random numbers in sheetd's id range, chosen
 * once), so clients may keep them. Add one by adding an entry; never change an id.
 */
export interface PublicTemplate {
  id: number;
  name: string;
  description: string;
  /** The reference's globalTemplate kinds, for the templates that are one of them. */
  globalTemplate?: 'BLANK_SHEET' | 'PROJECT_SHEET' | 'TASK_LIST';
  /** The Blank Sheet: columns only, no sample rows. */
  blank?: boolean;
  /** A project sheet: dependencies enabled (DURATION, PREDECESSOR and start/end date columns). */
  dependenciesEnabled?: boolean;
  categories: string[];
  tags: string[];
  locale: 'en_US';
  columns: Array<Record<string, unknown>>;
  /**
   * Sample rows: stored values by column title (engine/cells.ts), top to bottom. A predecessor's
   * rowId is the index of a sample row here; a project template's dates are scheduled when the
   * sheet is made.
   */
  rows: Array<Record<string, StoredValue>>;
}

export const PUBLIC_TEMPLATES: readonly PublicTemplate[] = [
  {
    // the id the public service publishes for its Blank Sheet, which client code hard-codes
    id: 7881304550205316,
    name: 'Blank Sheet',
    description: 'An empty sheet: a primary column and five more, ready to rename.',
    globalTemplate: 'BLANK_SHEET',
    blank: true,
    categories: ['Blank'],
    tags: ['blank'],
    locale: 'en_US',
    columns: [
      { title: 'Primary Column', type: 'TEXT_NUMBER', primary: true },
      { title: 'Column2', type: 'TEXT_NUMBER' },
      { title: 'Column3', type: 'TEXT_NUMBER' },
      { title: 'Column4', type: 'TEXT_NUMBER' },
      { title: 'Column5', type: 'TEXT_NUMBER' },
      { title: 'Column6', type: 'TEXT_NUMBER' },
    ],
    rows: [],
  },
  {
    id: 5816286846604928,
    name: 'Project Plan',
    description: 'Plan a project: tasks with owners, start and end dates, durations, predecessors, status and progress.',
    globalTemplate: 'PROJECT_SHEET',
    dependenciesEnabled: true,
    categories: ['Project Management'],
    tags: ['project', 'plan', 'schedule'],
    locale: 'en_US',
    columns: [
      { title: 'Task Name', type: 'TEXT_NUMBER', primary: true },
      // the parts the columns play in the schedule (Column.tags); the assignees label the Gantt bars
      { title: 'Assigned To', type: 'CONTACT_LIST', tags: ['GANTT_ASSIGNED_RESOURCE', 'GANTT_DISPLAY_LABEL'] },
      { title: 'Start', type: 'ABSTRACT_DATETIME', tags: ['CALENDAR_START_DATE', 'GANTT_START_DATE'] },
      { title: 'Finish', type: 'ABSTRACT_DATETIME', tags: ['CALENDAR_END_DATE', 'GANTT_END_DATE'] },
      { title: 'Duration', type: 'DURATION', tags: ['GANTT_DURATION'] },
      { title: 'Predecessors', type: 'PREDECESSOR', tags: ['GANTT_PREDECESSOR'] },
      { title: 'Status', type: 'PICKLIST', options: ['Not Started', 'In Progress', 'Complete', 'On Hold'] },
      { title: '% Complete', type: 'TEXT_NUMBER', tags: ['GANTT_PERCENT_COMPLETE'] },
      { title: 'Comments', type: 'TEXT_NUMBER' },
    ],
    // a chain of finish-to-start tasks from Monday 2026-01-05; the finish dates are computed
    rows: [
      { 'Task Name': 'Kick-off', Start: { t: Date.parse('2026-01-05T08:00:00Z') }, Duration: { du: { objectType: 'DURATION', days: 1 } }, Status: 'Not Started', '% Complete': 0 },
      { 'Task Name': 'Requirements', Duration: { du: { objectType: 'DURATION', days: 9 } }, Predecessors: { p: [{ rowId: 0, type: 'FS' }] }, Status: 'Not Started', '% Complete': 0 },
      { 'Task Name': 'Design', Duration: { du: { objectType: 'DURATION', weeks: 2 } }, Predecessors: { p: [{ rowId: 1, type: 'FS' }] }, Status: 'Not Started', '% Complete': 0 },
      { 'Task Name': 'Build', Duration: { du: { objectType: 'DURATION', weeks: 4 } }, Predecessors: { p: [{ rowId: 2, type: 'FS' }] }, Status: 'Not Started', '% Complete': 0 },
      { 'Task Name': 'Test', Duration: { du: { objectType: 'DURATION', weeks: 2 } }, Predecessors: { p: [{ rowId: 3, type: 'FS' }] }, Status: 'Not Started', '% Complete': 0 },
      { 'Task Name': 'Launch', Duration: { du: { objectType: 'DURATION', days: 0 } }, Predecessors: { p: [{ rowId: 4, type: 'FS' }] }, Status: 'Not Started', '% Complete': 0 },
    ],
  },
  {
    id: 8510718851534753,
    name: 'Task List',
    description: 'Keep track of to-dos: what, who, by when, and whether it is done.',
    globalTemplate: 'TASK_LIST',
    categories: ['Task Management'],
    tags: ['tasks', 'to-do', 'checklist'],
    locale: 'en_US',
    columns: [
      { title: 'Task', type: 'TEXT_NUMBER', primary: true },
      { title: 'Done', type: 'CHECKBOX' },
      { title: 'Due Date', type: 'DATE' },
      { title: 'Assigned To', type: 'CONTACT_LIST' },
      { title: 'Notes', type: 'TEXT_NUMBER' },
    ],
    rows: [
      { Task: 'Write the agenda', Done: false, 'Due Date': { d: '2026-01-09' } },
      { Task: 'Book the room', Done: false, 'Due Date': { d: '2026-01-12' } },
      { Task: 'Send the invitations', Done: false, 'Due Date': { d: '2026-01-14' } },
    ],
  },
  {
    id: 4530990268982594,
    name: 'Issue Tracker',
    description: 'Log issues as they are reported and follow them to resolution.',
    categories: ['IT & Operations'],
    tags: ['issues', 'bugs', 'tracking'],
    locale: 'en_US',
    columns: [
      { title: 'Issue', type: 'TEXT_NUMBER', primary: true },
      { title: 'Priority', type: 'PICKLIST', options: ['High', 'Medium', 'Low'] },
      { title: 'Status', type: 'PICKLIST', options: ['Open', 'In Progress', 'Resolved', 'Closed'] },
      { title: 'Reported By', type: 'CONTACT_LIST' },
      { title: 'Reported On', type: 'DATE' },
      { title: 'Assigned To', type: 'CONTACT_LIST' },
      { title: 'Description', type: 'TEXT_NUMBER' },
    ],
    rows: [
      { Issue: 'Sign-in page times out', Priority: 'High', Status: 'Open', 'Reported On': { d: '2026-01-07' }, Description: 'Happens on slow connections.' },
      { Issue: 'Typo on the pricing page', Priority: 'Low', Status: 'Open', 'Reported On': { d: '2026-01-08' } },
    ],
  },
];

/** A project sheet's working week, as the public service's new project sheets have it. */
export const DEFAULT_PROJECT_SETTINGS = { workingDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'], nonWorkingDays: [] as string[], lengthOfDay: 8 };

export function publicTemplate(id: number): PublicTemplate | undefined {
  return PUBLIC_TEMPLATES.find((t) => t.id === id);
}

/**
 * A new sheet from a public template, in the caller's container: its columns, and with
 * include=data its sample rows. The other include options name nothing a public template holds.
 */
export async function createFromPublicTemplateIn(
  db: Queryable, actor: Actor, container: SheetContainer, name: string, t: PublicTemplate, include: ReadonlySet<string>, now = clock.now(),
): Promise<SheetRow> {
  const { sheet, columns } = await createSheetFromColumnsIn(db, actor, container, { name, columns: t.columns }, { level: 2, projectSheet: t.dependenciesEnabled === true, keepTags: true }, now);
  const source = JSON.stringify({ id: t.id, type: 'template' });
  const settings = t.dependenciesEnabled ? JSON.stringify({ dependenciesEnabled: true, projectSettings: { ...DEFAULT_PROJECT_SETTINGS } }) : sheet.settings;
  await updateSheet(db, sheet.id, { source, settings });
  if (include.has('data') || include.has('all')) {
    const byTitle = new Map(columns.map((c) => [c.title, c.id]));
    const ids = newIds(t.rows.length);
    const rowCells: StoredRowCells[] = t.rows.map((r) => {
      const cells: StoredRowCells = {};
      for (const [title, v] of Object.entries(r)) {
        const value: StoredValue = typeof v === 'object' && 'p' in v ? { p: v.p.map((p) => ({ ...p, rowId: ids[p.rowId]! })) } : v;
        cells[String(byTitle.get(title)!)] = { v: value };
      }
      return cells;
    });
    const project = t.dependenciesEnabled ? projectColumnsOf(columns) : undefined;
    if (project !== undefined) {
      const rows = rowCells.map((cells, i) => ({ id: ids[i]!, parentId: null, cells }));
      for (const c of scheduleProject(rows, project, new WorkCalendar(DEFAULT_PROJECT_SETTINGS)).changes) {
        const cells = rowCells[ids.indexOf(c.rowId)]!;
        if (c.v === undefined) delete cells[String(c.columnId)];
        else cells[String(c.columnId)] = { v: c.v };
      }
    }
    const records: Insertable<RowTable>[] = rowCells.map((cells, i) => {
      return {
        id: ids[i]!, sheet_id: sheet.id, parent_id: null, sort_key: (i + 1) * KEY_STEP, expanded: 1, locked: 0, format: null,
        cells: JSON.stringify(cells), cell_meta: '{}', created_at: now, created_by: actor.user.id, modified_at: now, modified_by: actor.user.id,
      };
    });
    if (records.length > 0) await insertRowRecords(db, records);
  }
  return { ...sheet, source, settings };
}
