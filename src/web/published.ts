import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { editPublishedRow, openPublication, type OpenedPublication } from '../services/collaboration/publish.ts';
import { pageRefusal } from './refusal.ts';
import { modelForRead } from '../services/computed/currentValues.ts';
import type { RowState, SheetModel } from '../engine/model.ts';
import { readReport } from '../services/assets/reports.ts';
import { userLookup } from '../services/sheets/sheetReads.ts';
import type { ReadOptions } from '../services/platform/context.ts';
import type { ColumnDef } from '../engine/columns.ts';
import type { ApiCell } from '../engine/display.ts';
import { parseFormat, FMT } from '../engine/format.ts';
import { FORMAT_TABLES } from '../engine/formatTables.ts';
import { rowCells } from '../render/rowCells.ts';
import { reportCells } from '../http/present/reports.ts';
import { shownText } from '../render/csv.ts';
import { threadsFor } from '../http/present/threads.ts';
import { page } from './page.ts';

/** One cell of a published table: the text it shows and the classes of its simple formats. */
interface PageCell {
  text: string;
  cls: string;
  /** A cell's hyperlink to a web address (links to sheets and reports are not followed). */
  href?: string;
  /** Read-write view: the cell's value as text in an input named c{columnId} (absent: not editable). */
  edit?: { name: string; value: string };
}

interface PageRow {
  id: number;
  number: number;
  depth: number;
  cells: PageCell[];
  /** The full view: the row's comments and attachment names. */
  comments?: Array<{ author: string; text: string }>;
  attachments?: Array<{ name: string; url?: string }>;
}

/**
 * Classes of the formats a published page shows (bold, italic, underline, strikethrough,
 * alignment, text and background colour): the pages' Content-Security-Policy allows no inline
 * styles, so each colour of the format tables is a class of published.css.
 */
export const PUBLISHED_CSS = [
  '.pub td.b { font-weight: 700; } .pub td.i { font-style: italic; } .pub td.u { text-decoration: underline; }',
  '.pub td.s { text-decoration: line-through; } .pub td.u.s { text-decoration: underline line-through; }',
  '.pub td.al { text-align: left; } .pub td.ac { text-align: center; } .pub td.ar { text-align: right; }',
  '.pub { overflow-x: auto; } .pub table { font-size: .9rem; } .pub th.n, .pub td.n { color: var(--muted); width: 3rem; }',
  '.pub .thread { color: var(--muted); font-size: .85rem; margin: .2rem 0 0; padding-left: 1rem; }',
  ...FORMAT_TABLES.color.flatMap((c, i) => (c.startsWith('#') ? [`.pub td.fg${i} { color: ${c}; }`, `.pub td.bg${i} { background: ${c}; }`] : [])),
  ...[1, 2, 3, 4, 5, 6, 7, 8].map((d) => `.pub td.d${d} { padding-left: ${0.6 + d * 1.2}rem; }`),
].join('\n');

function classesOf(format: string | undefined): string {
  if (format === undefined) return '';
  let f: ReturnType<typeof parseFormat>;
  try {
    f = parseFormat(format);
  } catch {
    return '';
  }
  const out: string[] = [];
  if (f[FMT.bold] === 1) out.push('b');
  if (f[FMT.italic] === 1) out.push('i');
  if (f[FMT.underline] === 1) out.push('u');
  if (f[FMT.strikethrough] === 1) out.push('s');
  const align = f[FMT.horizontalAlign];
  if (align === 1) out.push('al');
  if (align === 2) out.push('ac');
  if (align === 3) out.push('ar');
  const fg = f[FMT.textColor];
  if (typeof fg === 'number' && fg >= 2) out.push(`fg${fg}`);
  const bg = f[FMT.backgroundColor];
  if (typeof bg === 'number' && bg >= 2) out.push(`bg${bg}`);
  return out.join(' ');
}

function pageCell(c: ApiCell | { value?: unknown; displayValue?: string; format?: string; hyperlink?: { url?: string } }): PageCell {
  const out: PageCell = { text: shownText(c) ?? '', cls: classesOf(c.format) };
  const url = c.hyperlink?.url;
  if (typeof url === 'string' && /^https?:\/\//i.test(url)) out.href = url;
  return out;
}

const readOptions = (full: boolean): ReadOptions => ({
  include: new Set(full ? ['format', 'attachments', 'discussions', 'comments'] : ['format']),
  exclude: new Set(),
  numericDates: false,
  level: 2,
  accessApiLevel: 0,
});

/** Column types a read-write view edits as text (others are shown as in the read-only views). */
const EDITABLE_TYPES = new Set(['TEXT_NUMBER', 'DATE', 'PICKLIST']);

function editable(model: SheetModel, col: ColumnDef): boolean {
  return EDITABLE_TYPES.has(col.type) && col.systemColumnType === undefined && col.formula === undefined && col.locked !== true && model.columnsById.has(col.id);
}

/** A stored cell's value as the text of its input: numbers and text as they are, a date as YYYY-MM-DD. */
function editText(row: RowState, col: ColumnDef): string | undefined {
  const c = row.cells[String(col.id)];
  if (c?.fx !== undefined || c?.li !== undefined) return undefined;
  const v = c?.v;
  if (v === undefined) return '';
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  if (typeof v === 'object' && v !== null && 'd' in v) return v.d;
  return undefined;
}

function depthOf(model: SheetModel, row: RowState): number {
  let d = 0;
  for (let p = row.parentId; p !== null && d < 50; p = model.rows.get(p)?.parentId ?? null) d++;
  return d;
}

/** The sheet as a viewer sees it: visible columns, rows in order, display values and simple formats. */
async function sheetTable(web: FastifyInstance, p: Extract<OpenedPublication, { type: 'sheet' }>) {
  const db = web.ctx.store.db;
  const model = await modelForRead(db, p.sheet);
  const full = p.kind === 'readOnlyFull' || p.kind === 'readWrite';
  const ro = readOptions(full);
  const columns: ColumnDef[] = model.columns.filter((c) => c.hidden !== true);
  const rows = model.tree.displayOrder().map((id) => model.rows.get(id)!);
  const users = await userLookup(db, rows);
  const threads = full ? await threadsFor(db, p.sheet.id, 'all', ro, 'VIEWER') : undefined;
  const opts = { ro, level: 'VIEWER' as const, users, permalinkBase: web.ctx.config.publicUrl, columns, threads: threads?.rows };
  const writable = p.kind === 'readWrite';
  const out: PageRow[] = rows.map((row) => {
    const r: PageRow = { id: row.id, number: model.tree.rowNumberOf(row.id) ?? 0, depth: Math.min(depthOf(model, row), 8), cells: rowCells(model, row, opts).map(pageCell) };
    if (writable && row.locked !== true) {
      columns.forEach((col, i) => {
        const text = editable(model, col) ? editText(row, col) : undefined;
        if (text !== undefined) r.cells[i]!.edit = { name: `c${col.id}`, value: text };
      });
    }
    if (threads) {
      r.comments = ((threads.rows.discussions.get(row.id) ?? []) as Array<{ comments?: Array<{ text?: string; createdBy?: { name?: string; email?: string } }> }>)
        .flatMap((d) => d.comments ?? [])
        .map((c) => ({ author: c.createdBy?.name ?? c.createdBy?.email ?? '', text: c.text ?? '' }));
      r.attachments = ((threads.rows.attachments.get(row.id) ?? []) as Array<{ name?: string; attachmentType?: string; url?: string }>)
        .map((a) => ({ name: a.name ?? '', url: a.attachmentType !== 'FILE' && typeof a.url === 'string' && /^https?:/.test(a.url) ? a.url : undefined }));
    }
    return r;
  });
  return { name: p.sheet.name, titles: columns.map((c) => c.title), rows: out, full, writable };
}

/** The report as its owner sees it (the rows of the sources the owner can see). */
async function reportTable(web: FastifyInstance, p: Extract<OpenedPublication, { type: 'report' }>) {
  const data = await readReport(web.ctx.store.db, p.owner, p.report.id);
  const o = { ro: readOptions(false), users: data.users, permalinkBase: web.ctx.config.publicUrl };
  const rows: PageRow[] = data.rows.map((ref, i) => ({ id: ref.row.id, number: i + 1, depth: 0, cells: reportCells(data.definition, ref, o).map((c) => pageCell(c.cell as ApiCell)) }));
  return { name: p.report.name, titles: data.definition.columns.map((c) => c.title), rows, full: false, writable: false };
}

/** iCal: one all-day VEVENT per row per DATE column (a timed one for ABSTRACT_DATETIME), named after the primary column. */
async function sheetCalendar(web: FastifyInstance, p: Extract<OpenedPublication, { type: 'sheet' }>): Promise<string> {
  const model = await modelForRead(web.ctx.store.db, p.sheet);
  const dateCols = model.columns.filter((c) => (c.type === 'DATE' || c.type === 'ABSTRACT_DATETIME') && c.systemColumnType === undefined);
  const primary = model.columns.find((c) => c.primary) ?? model.columns[0];
  // imported when first used (few servers publish calendars: its modules stay out of memory)
  const { default: ical } = await import('ical-generator');
  const cal = ical({ name: p.sheet.name, prodId: { company: 'sheetd', product: 'published sheet', language: 'EN' } });
  const host = new URL(web.ctx.config.publicUrl || 'http://localhost').hostname;
  for (const id of model.tree.displayOrder()) {
    const row = model.rows.get(id)!;
    const title = primary ? (row.cells[String(primary.id)]?.v ?? '') : '';
    const name = typeof title === 'object' ? '' : String(title);
    for (const col of dateCols) {
      const v = row.cells[String(col.id)]?.v;
      let start: Date | undefined;
      let allDay = false;
      if (typeof v === 'object' && v !== null && 'd' in v) {
        start = new Date(`${v.d}T00:00:00Z`);
        allDay = true;
      } else if (typeof v === 'object' && v !== null && 't' in v) {
        start = new Date(v.t);
      }
      if (start === undefined || Number.isNaN(start.getTime())) continue;
      cal.createEvent({
        id: `${row.id}-${col.id}@${host}`,
        start,
        allDay,
        summary: dateCols.length > 1 ? `${name} (${col.title})` : name,
        stamp: new Date(row.modifiedAt),
      });
    }
  }
  return cal.toString();
}

/**
 * Published sheets and reports at /published/{token} (HTML) and /published/{token}.ics (iCal):
 * read-only pages of the sheet or report as it is now. A view for members (ORG) or for those it
 * is shared with (SHARED) needs a signed-in session of the pages; an unpublished view is 404.
 */
export async function publishedPages(web: FastifyInstance): Promise<void> {
  web.get('/static/published.css', async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=3600');
    return reply.type('text/css; charset=utf-8').send(PUBLISHED_CSS);
  });

  const notFound = (req: FastifyRequest, reply: FastifyReply) =>
    page(req, reply, 'error.eta', { title: 'Not found', message: 'Nothing is published at this address.' }, 404);

  web.get('/published/:token', async (req: FastifyRequest<{ Params: { token: string } }>, reply) => {
    const raw = req.params.token;
    const isIcs = raw.endsWith('.ics');
    const token = isIcs ? raw.slice(0, -4) : raw;
    const p = await openPublication(web.ctx.store.db, token, req.webUser, web.ctx.config.publish);
    if (p === undefined) return notFound(req, reply);
    if (p === 'signIn') return reply.redirect(`/login?next=${encodeURIComponent(`/published/${raw}`)}`, 303);
    if (p === 'denied') return page(req, reply, 'error.eta', { title: 'Not shared with you', message: 'This published view is open to the people it is shared with only.' }, 403);
    if (isIcs !== (p.kind === 'ical')) return notFound(req, reply);
    if (p.type === 'sheet' && p.kind === 'ical') {
      return reply.type('text/calendar; charset=utf-8').header('content-disposition', 'inline; filename="calendar.ics"').send(await sheetCalendar(web, p));
    }
    const table = p.type === 'sheet' ? await sheetTable(web, p) : await reportTable(web, p);
    return page(req, reply, 'published.eta', { title: table.name, table, kind: p.kind, token, extraCss: '/static/published.css' });
  });

  // Edit by Anyone: one row's cells from its form; the write is made as the user who published the view
  web.post('/published/:token/rows/:rowId', { preHandler: web.csrfProtection }, async (req, reply) => {
    const params = req.params as { token: string; rowId: string };
    const { token } = params;
    const p = await openPublication(web.ctx.store.db, token, req.webUser, web.ctx.config.publish);
    if (p === undefined || p === 'denied' || p === 'signIn' || p.type !== 'sheet' || p.kind !== 'readWrite') return notFound(req, reply);
    const rowId = Number(params.rowId);
    const model = await modelForRead(web.ctx.store.db, p.sheet);
    const row = Number.isSafeInteger(rowId) ? model.rows.get(rowId) : undefined;
    if (!row || row.locked) return notFound(req, reply);
    const form = (req.body ?? {}) as Record<string, unknown>;
    const values = new Map<number, string>();
    for (const col of model.columns) {
      const sent = form[`c${col.id}`];
      if (typeof sent !== 'string' || col.hidden === true || !editable(model, col)) continue;
      const now = editText(row, col);
      if (now !== undefined && sent.trim() !== now) values.set(col.id, sent.trim());
    }
    try {
      await editPublishedRow(web.ctx.store, p, row.id, values);
    } catch (e) {
      const refusal = pageRefusal(e);
      if (refusal === undefined) throw e;
      return page(req, reply, 'error.eta', { title: 'Not saved', message: refusal.message }, refusal.statusCode);
    }
    return reply.redirect(`/published/${token}`, 303);
  });
}
