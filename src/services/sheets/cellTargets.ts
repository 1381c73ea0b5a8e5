import type { CellWriteContext } from '../../engine/values.ts';
import { isId } from '../../engine/input.ts';
import { findSheet } from '../../store/sheets.ts';
import { chunks } from '../../store/db.ts';
import { imageSizes } from '../../store/images.ts';
import type { Actor } from '../platform/context.ts';
import { sheetAccessLevel } from '../access/permissions.ts';
import { loadLinkSources, type LinkSources } from '../computed/cellLinks.ts';
import type { WriteContext } from './sheetWrites.ts';
import { findReport } from '../../store/reports.ts';
import { reportAccess, sightAccess } from '../access/assetAccess.ts';
import { findSight } from '../../store/sights.ts';
import { findOrgUserNames } from '../../store/users.ts';

/**
 * What the cells of a row write point at outside their own row, looked up once per request
 * before the cells are parsed: the source sheets of cell links, the sheets of sheet
 * hyperlinks, and of report and dashboard hyperlinks (1114 when the caller cannot see them;
 * their name is the cell's value), the
 * images of the sheet named by `image.id` (1006 for an id the sheet does not have), and the
 * names of the organization's users among the addresses written to contact cells without a
 * name (the reference: "a best guess effort at filling it in with a contact's name").
 */
export interface CellTargets {
  links: LinkSources;
  context: Pick<CellWriteContext, 'hyperlinkTarget' | 'imageInfo' | 'lookupContactName'>;
}

type CellLike = {
  columnId?: unknown;
  value?: unknown;
  objectValue?: { email?: unknown; name?: unknown; values?: unknown };
  hyperlink?: { sheetId?: unknown; reportId?: unknown; sightId?: unknown };
  image?: { id?: unknown };
  linkInFromCell?: { sheetId?: unknown };
} | null;

const CONTACT_TYPES = new Set(['CONTACT_LIST', 'MULTI_CONTACT_LIST']);

/** The addresses a contact cell is given without a name (a value, or contacts of an objectValue). */
function namelessAddresses(c: NonNullable<CellLike>, out: Set<string>): void {
  const add = (email: unknown, name: unknown) => {
    if (typeof email === 'string' && email.includes('@') && (name === undefined || name === null) && email.length <= 320) out.add(email.trim().toLowerCase());
  };
  add(c.value, undefined);
  const ov = c.objectValue;
  if (ov === null || typeof ov !== 'object') return;
  add(ov.email, ov.name);
  if (Array.isArray(ov.values)) for (const v of ov.values as unknown[]) if (v !== null && typeof v === 'object') add((v as { email?: unknown }).email, (v as { name?: unknown }).name);
}

function cellsOf(rows: readonly Record<string, unknown>[]): CellLike[] {
  const out: CellLike[] = [];
  for (const r of rows) if (Array.isArray(r.cells)) out.push(...(r.cells as CellLike[]));
  return out;
}

export async function loadCellTargets(ctx: WriteContext, actor: Actor, rows: readonly Record<string, unknown>[]): Promise<CellTargets> {
  const cells = cellsOf(rows);
  const sheetIds = new Set<number>();
  const reportIds = new Set<number>();
  const sightIds = new Set<number>();
  const imageIds = new Set<string>();
  const linkSheetIds = new Set<number>();
  const emails = new Set<string>();
  const contactColumns = new Set(ctx.model.columns.filter((col) => CONTACT_TYPES.has(col.type)).map((col) => col.id));
  for (const c of cells) {
    if (contactColumns.size > 0 && c !== null && typeof c === 'object' && contactColumns.has(c.columnId as number)) namelessAddresses(c, emails);
    // only ids are looked up; anything else is refused when the cell is parsed (1031)
    if (isId(c?.linkInFromCell?.sheetId)) linkSheetIds.add(c.linkInFromCell.sheetId);
    if (isId(c?.hyperlink?.sheetId)) sheetIds.add(c.hyperlink.sheetId);
    if (isId(c?.hyperlink?.reportId)) reportIds.add(c.hyperlink.reportId);
    if (isId(c?.hyperlink?.sightId)) sightIds.add(c.hyperlink.sightId);
    if (typeof c?.image?.id === 'string' && c.image.id !== '') imageIds.add(c.image.id);
  }
  const sheets = new Map<number, { name: string }>();
  for (const id of sheetIds) {
    const sheet = await findSheet(ctx.tx, id);
    if (sheet && (await sheetAccessLevel(ctx.tx, actor, sheet)) !== null) {
      sheets.set(id, { name: sheet.name });
    }
  }
  const reports = new Map<number, { name: string }>();
  for (const id of reportIds) {
    const r = await findReport(ctx.tx, id);
    if (r && (await reportAccess.levelOf(ctx.tx, actor, r)) !== null) reports.set(id, { name: r.name });
  }
  const sights = new Map<number, { name: string }>();
  for (const id of sightIds) {
    const d = await findSight(ctx.tx, id);
    if (d && (await sightAccess.levelOf(ctx.tx, actor, d)) !== null) sights.set(id, { name: d.name });
  }
  const images = new Map<string, { width: number; height: number }>();
  for (const part of chunks([...imageIds])) {
    const found = await imageSizes(ctx.tx, ctx.model.sheetId, part);
    for (const f of found) images.set(f.id, { width: f.width, height: f.height });
  }
  const names = new Map<string, string>();
  for (const part of chunks([...emails])) {
    for (const u of await findOrgUserNames(ctx.tx, actor.org.id, part)) {
      const name = [u.first_name, u.last_name].filter((x) => x !== null && x !== '').join(' ');
      if (name !== '') names.set(u.email, name);
    }
  }
  return {
    links: await loadLinkSources(ctx.tx, actor, linkSheetIds),
    context: {
      hyperlinkTarget: (kind, id) => (kind === 'sheet' ? sheets.get(id) : kind === 'report' ? reports.get(id) : sights.get(id)),
      imageInfo: (id) => images.get(id),
      ...(names.size > 0 ? { lookupContactName: (email: string) => names.get(email.toLowerCase()) } : {}),
    },
  };
}
