import type { Config } from '../../config.ts';
import type { SheetRow } from '../../store/sheets.ts';
import { presentAccessLevel, type AccessLevel } from '../../services/access/access.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import type { PublicTemplate } from '../../services/places/publicTemplates.ts';
import { ts } from './dates.ts';
import { permalink } from '../../render/permalinks.ts';
import { addOwnerInfo, type OwnerEmails } from './owners.ts';

export function sheetSource(s: SheetRow): { id: number; type: string } | undefined {
  if (s.source === null) return undefined;
  const src = JSON.parse(s.source) as { id?: number; type?: string };
  return typeof src.id === 'number' && typeof src.type === 'string' ? { id: src.id, type: src.type } : undefined;
}

/** The abbreviated Sheet of List Sheets and of folder and workspace contents. */
export function sheetSummary(config: Config, s: SheetRow, level: AccessLevel, ro: ReadOptions, opts: { favorite?: boolean; owners?: OwnerEmails } = {}) {
  const out: Record<string, unknown> = {
    id: s.id,
    name: s.name,
    accessLevel: presentAccessLevel(level, ro.accessApiLevel),
    permalink: permalink(config, 'sheets', s.id),
    createdAt: ts(s.created_at, ro.numericDates),
    modifiedAt: ts(s.modified_at, ro.numericDates),
  };
  if (ro.include.has('sheetVersion')) out.version = s.version;
  if (ro.include.has('source')) {
    const src = sheetSource(s);
    if (src) out.source = src;
  }
  addOwnerInfo(out, s.owner_id, ro, opts.owners);
  if (opts.favorite) out.favorite = true;
  return out;
}

/** The short form returned by create, copy, move and update. */
export function sheetResult(config: Config, s: SheetRow, level: AccessLevel, ro: ReadOptions) {
  return { id: s.id, name: s.name, accessLevel: presentAccessLevel(level, ro.accessApiLevel), permalink: permalink(config, 'sheets', s.id) };
}

/** A Template of List Templates (a sheet saved as a template). */
export function templateSummary(s: SheetRow, level: AccessLevel, ro: ReadOptions) {
  const out: Record<string, unknown> = { id: s.id, name: s.name, type: 'sheet', accessLevel: presentAccessLevel(level, ro.accessApiLevel) };
  const description = (JSON.parse(s.settings) as { templateDescription?: unknown }).templateDescription;
  if (typeof description === 'string') out.description = description;
  return out;
}

/** A Template of List Public Templates (one that sheetd ships): anyone may use it, nobody edits it. */
export function publicTemplateSummary(t: PublicTemplate, ro: ReadOptions) {
  return {
    id: t.id, name: t.name, description: t.description, type: 'sheet', accessLevel: presentAccessLevel('VIEWER', ro.accessApiLevel),
    blank: t.blank === true, locale: t.locale, categories: t.categories, tags: t.tags,
    ...(t.globalTemplate !== undefined ? { globalTemplate: t.globalTemplate } : {}),
  };
}
