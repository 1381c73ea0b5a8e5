import type { Queryable, Store } from '../../store/db.ts';
import { updateSheet, type SheetRow } from '../../store/sheets.ts';
import { apiError } from '../../errors.ts';
import { asObject } from '../../engine/input.ts';
import type { AccessLevel } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { accessibleSheets } from '../access/containers.ts';
import { sheetFor } from '../access/permissions.ts';
import { requireName } from '../sheets/sheetCreation.ts';
import { copyContext, copySheetRecords, finishCopy, settingsOf } from '../sheets/sheetLifecycle.ts';
import { PUBLIC_TEMPLATES, type PublicTemplate } from './publicTemplates.ts';
import { clock } from '../../clock.ts';

/** User-created templates are sheets saved as templates (is_template) that the caller can see. */
export async function listUserTemplates(db: Queryable, actor: Actor): Promise<Array<{ sheet: SheetRow; level: AccessLevel }>> {
  return [...(await accessibleSheets(db, actor, { templates: true })).values()];
}

/** The public templates sheetd ships (services/places/publicTemplates.ts), by name. */
export function listPublicTemplates(): PublicTemplate[] {
  return [...PUBLIC_TEMPLATES].sort((a, b) => a.name.localeCompare(b.name));
}

/** A template's description (kept in its settings), if it has one. */
export function templateDescription(sheet: SheetRow): string | undefined {
  const d = settingsOf(sheet).templateDescription;
  return typeof d === 'string' ? d : undefined;
}

/** What Save as Template may bring along from the sheet (include=...); anything else is 1018. */
export const TEMPLATE_INCLUDES = ['data', 'attachments', 'discussions', 'cellLinks', 'forms', 'filters', 'all'] as const;

/**
 * Save as Template (sheetd extension, POST /sheetd/sheets/{id}/template): a copy of the sheet
 * flagged as a template, in the caller's home, owned by the caller. The columns always come
 * along; data, attachments, discussions, cell links and forms as `include` says. Any access to
 * the sheet will do, as for Copy Sheet.
 */
export function saveAsTemplate(store: Store, actor: Actor, sheetId: number, body: unknown, include: ReadonlySet<string>, now = clock.now()): Promise<SheetRow> {
  return store.db.transaction().execute(async (tx) => {
    const { sheet } = await sheetFor(tx, actor, sheetId, 'VIEWER');
    const b = asObject(body, 'a Template object');
    const name = requireName(b);
    const description = b.description;
    if (description !== undefined && description !== null && typeof description !== 'string') throw apiError(1031, String(description), 'description');
    if (typeof description === 'string' && description.length > 4000) throw apiError(1041, 'description', 4000, description.length);
    for (const k of include) if (!(TEMPLATE_INCLUDES as readonly string[]).includes(k)) throw apiError(1018, k, 'include');
    const ctx = copyContext(actor, include, [], now);
    const copy = await copySheetRecords(tx, ctx, sheet, { folderId: null, workspaceId: null }, name, sheet.is_template ? 'template' : 'sheet');
    const settings = settingsOf(copy);
    delete settings.templateDescription;
    if (typeof description === 'string' && description !== '') settings.templateDescription = description;
    const saved: SheetRow = { ...copy, is_template: 1, settings: JSON.stringify(settings) };
    await updateSheet(tx, copy.id, { is_template: 1, settings: saved.settings });
    await finishCopy(tx, ctx);
    return saved;
  });
}
