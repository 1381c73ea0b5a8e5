import type { Queryable, Store } from '../../store/db.ts';
import type { SheetStore } from '../sheets/sheetWrites.ts';
import {
  deletePublication, findPublication, insertPublication, lockPublished, publicationsOf, publishSettingsOf, savePublishSettings, type PublicationRow, type PublishedType,
} from '../../store/publications.ts';
import { findSheet, type SheetRow } from '../../store/sheets.ts';
import { findReport, type ReportRow } from '../../store/reports.ts';
import { findUserById } from '../../store/users.ts';
import type { PublishPolicy } from '../../config.ts';
import { apiError } from '../../errors.ts';
import { randomString } from '../../ids.ts';
import { asObject, optionalBodyBool } from '../../engine/input.ts';
import { atLeast, type AccessLevel } from '../access/access.ts';
import type { Actor, UserRow } from '../platform/context.ts';
import { authorOf, recordEvents } from '../log/events.ts';
import { sheetAccessLevel, sheetFor } from '../access/permissions.ts';
import { reportAccess } from '../access/assetAccess.ts';
import { actorFor } from '../outbound/automation.ts';
import { updateRows } from '../sheets/rows.ts';
import { clock } from '../../clock.ts';

/** The views a sheet can be published as; a report has the read-only full view only. */
export const PUBLISH_KINDS = ['readOnlyLite', 'readOnlyFull', 'readWrite', 'ical'] as const;
export type PublishKind = (typeof PUBLISH_KINDS)[number];
const KINDS_OF: Record<PublishedType, readonly PublishKind[]> = { sheet: PUBLISH_KINDS, report: ['readOnlyFull'] };

export const ACCESSIBLE_BY = ['ALL', 'ORG', 'SHARED'] as const;
export type AccessibleBy = (typeof ACCESSIBLE_BY)[number];
const DEFAULT_VIEWS = ['CALENDAR', 'CARD', 'GRID'] as const;

/** Settings of the views, kept while they are unpublished. */
export interface PublishSettings {
  readOnlyFullAccessibleBy?: AccessibleBy;
  readOnlyFullDefaultView?: string;
  readOnlyFullShowToolbar?: boolean;
  readWriteAccessibleBy?: AccessibleBy;
  readWriteDefaultView?: string;
  readWriteShowToolbar?: boolean;
}

/** A sheet's or report's publish status: the token of each published view, and the settings. */
export interface PublishState {
  type: PublishedType;
  objectId: number;
  tokens: Partial<Record<PublishKind, string>>;
  settings: PublishSettings;
  /** URLs are shown to those who may publish (ADMIN and OWNER) only: a URL is access. */
  showUrls: boolean;
}

async function stateOf(db: Queryable, type: PublishedType, id: number, level: AccessLevel): Promise<PublishState> {
  const tokens: Partial<Record<PublishKind, string>> = {};
  for (const p of await publicationsOf(db, type, id)) tokens[p.kind as PublishKind] = p.token;
  const raw = await publishSettingsOf(db, type, id);
  return { type, objectId: id, tokens, settings: raw === undefined ? {} : (JSON.parse(raw) as PublishSettings), showUrls: atLeast(level, 'ADMIN') };
}

/** Get Sheet Publish Status: anyone who can see the sheet reads the flags; URLs need ADMIN. */
export async function sheetPublishStatus(db: Queryable, actor: Actor, sheetId: number): Promise<PublishState> {
  const { sheet, level } = await sheetFor(db, actor, sheetId, 'VIEWER');
  return stateOf(db, 'sheet', sheet.id, level);
}

/** Get Report Publish Status, as for sheets. */
export async function reportPublishStatus(db: Queryable, actor: Actor, reportId: number): Promise<PublishState> {
  const { asset: report, level } = await reportAccess.require(db, actor, reportId, 'VIEWER');
  return stateOf(db, 'report', report.id, level);
}

function flag(b: Record<string, unknown>, k: string): boolean | undefined {
  return optionalBodyBool(b[k], k);
}

function oneOf<T extends string>(b: Record<string, unknown>, k: string, allowed: readonly T[]): T | undefined {
  const v = b[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !allowed.includes(v as T)) throw apiError(1031, String(v), k);
  return v as T;
}

interface PublishRequest {
  enable: Partial<Record<PublishKind, boolean>>;
  settings: PublishSettings;
}

/** Reads a SheetPublish or ReportPublish body: 1032 for attributes it does not have, 1031 for bad values. */
function parseRequest(type: PublishedType, body: unknown): PublishRequest {
  const b = asObject(body, type === 'sheet' ? 'a SheetPublish object' : 'a ReportPublish object');
  const kinds = KINDS_OF[type];
  const settable = new Set<string>([
    ...kinds.map((k) => `${k}Enabled`),
    ...(kinds.includes('readOnlyFull') ? ['readOnlyFullAccessibleBy', 'readOnlyFullDefaultView', 'readOnlyFullShowToolbar'] : []),
    ...(kinds.includes('readWrite') ? ['readWriteAccessibleBy', 'readWriteDefaultView', 'readWriteShowToolbar'] : []),
  ]);
  // the URLs are read-only, but a client may send back the status it read with one flag changed
  // (the Python SDK completes a partial SheetPublish that way): they are ignored
  const readOnly = new Set(['readOnlyLiteUrl', 'readOnlyLiteSslUrl', 'readOnlyFullUrl', 'readWriteUrl', 'icalUrl']);
  const refused = Object.keys(b).filter((k) => !settable.has(k) && !(readOnly.has(k) && (type === 'sheet' || k === 'readOnlyFullUrl')) && b[k] !== undefined);
  if (refused.length > 0) throw apiError(1032, refused.join(', '));
  const enable: Partial<Record<PublishKind, boolean>> = {};
  for (const k of kinds) {
    const v = flag(b, `${k}Enabled`);
    if (v !== undefined) enable[k] = v;
  }
  // the reference marks readOnlyFullEnabled required for reports; a sheet's flags not given keep their state
  if (type === 'report' && enable.readOnlyFull === undefined) throw apiError(1012, 'readOnlyFullEnabled');
  const settings: PublishSettings = {};
  const full = oneOf(b, 'readOnlyFullAccessibleBy', ACCESSIBLE_BY);
  if (full !== undefined) settings.readOnlyFullAccessibleBy = full;
  const fullView = oneOf(b, 'readOnlyFullDefaultView', DEFAULT_VIEWS);
  if (fullView !== undefined) settings.readOnlyFullDefaultView = fullView;
  const fullBar = flag(b, 'readOnlyFullShowToolbar');
  if (fullBar !== undefined) settings.readOnlyFullShowToolbar = fullBar;
  const rw = oneOf(b, 'readWriteAccessibleBy', ACCESSIBLE_BY);
  if (rw !== undefined) settings.readWriteAccessibleBy = rw;
  const rwView = oneOf(b, 'readWriteDefaultView', DEFAULT_VIEWS);
  if (rwView !== undefined) settings.readWriteDefaultView = rwView;
  const rwBar = flag(b, 'readWriteShowToolbar');
  if (rwBar !== undefined) settings.readWriteShowToolbar = rwBar;
  return { enable, settings };
}

/**
 * What the server's publish policy (SHEETD_PUBLISH) allows: `off` refuses every view (1175);
 * `org` refuses the views open to anyone with the link, lite and iCal (1175), and a read-only
 * full or read-write view open to ALL (1174).
 */
function checkPolicy(policy: PublishPolicy, on: ReadonlySet<PublishKind>, settings: PublishSettings): void {
  if (on.size === 0) return;
  if (policy === 'off') throw apiError(1175);
  if (policy === 'org') {
    if (on.has('readOnlyLite') || on.has('ical')) throw apiError(1175);
    if (on.has('readOnlyFull') && settings.readOnlyFullAccessibleBy === 'ALL') throw apiError(1174, 'readOnlyFullAccessibleBy');
    if (on.has('readWrite') && settings.readWriteAccessibleBy === 'ALL') throw apiError(1174, 'readWriteAccessibleBy');
  }
}

async function setPublish(
  db: Queryable, actor: Actor, policy: PublishPolicy, target: { type: PublishedType; id: number; name: string; orgId: number; sheetId: number | null; workspaceId: number | null; level: AccessLevel }, body: unknown, now: number,
): Promise<PublishState> {
  const req = parseRequest(target.type, body);
  const before = await stateOf(db, target.type, target.id, target.level);
  const settings: PublishSettings = { ...before.settings, ...req.settings };
  const on = new Set<PublishKind>();
  for (const k of KINDS_OF[target.type]) if (req.enable[k] ?? before.tokens[k] !== undefined) on.add(k);
  // a view being published without saying who may see it: the server's default
  if (on.has('readOnlyFull') && settings.readOnlyFullAccessibleBy === undefined) settings.readOnlyFullAccessibleBy = policy === 'org' ? 'ORG' : 'ALL';
  if (on.has('readWrite') && settings.readWriteAccessibleBy === undefined) settings.readWriteAccessibleBy = policy === 'org' ? 'ORG' : 'ALL';
  const newlyOn = new Set([...on].filter((k) => before.tokens[k] === undefined));
  const stillOn = new Set([...on].filter((k) => before.tokens[k] !== undefined));
  checkPolicy(policy, newlyOn, settings);
  // a view already published stays within the policy too when its settings change
  if (req.settings.readOnlyFullAccessibleBy !== undefined && stillOn.has('readOnlyFull')) checkPolicy(policy, new Set(['readOnlyFull']), settings);
  if (req.settings.readWriteAccessibleBy !== undefined && stillOn.has('readWrite')) checkPolicy(policy, new Set(['readWrite']), settings);
  const changed: Record<string, boolean> = {};
  for (const k of KINDS_OF[target.type]) {
    const was = before.tokens[k] !== undefined;
    const is = on.has(k);
    if (was === is) continue;
    changed[`${k}Enabled`] = is;
    if (is) {
      const row: PublicationRow = { token: randomString(32), org_id: target.orgId, object_type: target.type, object_id: target.id, kind: k, published_by: actor.user.id, created_at: now };
      await insertPublication(db, row);
    } else {
      await deletePublication(db, target.type, target.id, k);
    }
  }
  const settingsChanged = JSON.stringify(settings) !== JSON.stringify(before.settings);
  if (settingsChanged) await savePublishSettings(db, target.type, target.id, JSON.stringify(settings));
  if (Object.keys(changed).length > 0 || settingsChanged) {
    await recordEvents(db, authorOf(actor), [{
      objectType: target.type === 'sheet' ? 'SHEET' : 'REPORT', action: 'UPDATE', objectId: target.id, sheetId: target.sheetId, workspaceId: target.workspaceId,
      details: { [target.type === 'sheet' ? 'sheetName' : 'reportName']: target.name, publish: changed },
    }], now);
  }
  return stateOf(db, target.type, target.id, target.level);
}

/** Set Sheet Publish Status: the sheet's owner and admins (1004 otherwise). */
export function setSheetPublishStatus(store: Store, actor: Actor, sheetId: number, body: unknown, policy: PublishPolicy, now = clock.now()): Promise<PublishState> {
  return store.db.transaction().execute(async (tx) => {
    const { sheet, level } = await sheetFor(tx, actor, sheetId, 'ADMIN');
    if (store.dialect === 'postgres') await lockPublished(tx, 'sheet', sheet.id); // SQLite: the write transaction is the lock
    return setPublish(tx, actor, policy, { type: 'sheet', id: sheet.id, name: sheet.name, orgId: sheet.org_id, sheetId: sheet.id, workspaceId: sheet.workspace_id, level }, body, now);
  });
}

/** Set Report Publish Status: the report's owner and admins (1004 otherwise). */
export function setReportPublishStatus(store: Store, actor: Actor, reportId: number, body: unknown, policy: PublishPolicy, now = clock.now()): Promise<PublishState> {
  return store.db.transaction().execute(async (tx) => {
    const { asset: report, level } = await reportAccess.require(tx, actor, reportId, 'ADMIN');
    if (store.dialect === 'postgres') await lockPublished(tx, 'report', report.id);
    return setPublish(tx, actor, policy, { type: 'report', id: report.id, name: report.name, orgId: report.org_id, sheetId: null, workspaceId: report.workspace_id, level }, body, now);
  });
}

/** A published view opened through its URL. */
export type OpenedPublication =
  | { kind: PublishKind; type: 'sheet'; sheet: SheetRow; settings: PublishSettings; publishedBy: number }
  | { kind: PublishKind; type: 'report'; report: ReportRow; owner: Actor; settings: PublishSettings };

/**
 * Opens a published view by its token for a visitor (the signed-in user of the pages, or
 * nobody): undefined when no such view is published (404); 'signIn' when the view is for members
 * (ORG) or for those it is shared with (SHARED) and nobody is signed in; 'denied' when the
 * signed-in user is not one of them. The policy is applied again here, so tightening
 * SHEETD_PUBLISH closes URLs handed out before.
 */
export async function openPublication(db: Queryable, token: string, visitor: UserRow | null, policy: PublishPolicy): Promise<OpenedPublication | 'signIn' | 'denied' | undefined> {
  if (policy === 'off' || !/^[A-Za-z0-9]{32}$/.test(token)) return undefined;
  const pub = await findPublication(db, token);
  if (!pub) return undefined;
  const kind = pub.kind as PublishKind;
  if (policy === 'org' && (kind === 'readOnlyLite' || kind === 'ical')) return undefined;
  const type = pub.object_type as PublishedType;
  const raw = await publishSettingsOf(db, type, pub.object_id);
  const settings = raw === undefined ? {} : (JSON.parse(raw) as PublishSettings);
  let accessibleBy: AccessibleBy = kind === 'readOnlyFull' ? (settings.readOnlyFullAccessibleBy ?? 'ALL') : kind === 'readWrite' ? (settings.readWriteAccessibleBy ?? 'ALL') : 'ALL';
  if (policy === 'org' && accessibleBy === 'ALL') accessibleBy = 'ORG';
  const object = type === 'sheet' ? await findSheet(db, pub.object_id) : await findReport(db, pub.object_id);
  if (!object) return undefined;
  if (accessibleBy !== 'ALL') {
    if (!visitor) return 'signIn';
    if (visitor.org_id !== object.org_id) return 'denied';
    if (accessibleBy === 'SHARED') {
      const a = await actorFor(db, visitor);
      const level = a === undefined ? null : type === 'sheet' ? await sheetAccessLevel(db, a, object as SheetRow) : await reportAccess.levelOf(db, a, object as ReportRow);
      if (level === null) return 'denied';
    }
  }
  if (type === 'sheet') return { kind, type, sheet: object as SheetRow, settings, publishedBy: pub.published_by };
  // a report is read as its owner sees it: the rows of the sources the owner can see
  const owner = await ownerActor(db, object.owner_id);
  if (!owner) return undefined;
  return { kind, type, report: object as ReportRow, owner, settings };
}

async function ownerActor(db: Queryable, userId: number): Promise<Actor | undefined> {
  const u = await findUserById(db, userId);
  return u ? actorFor(db, u) : undefined;
}

/**
 * An edit made through a read-write ("Edit by Anyone") view: Update Rows of one row, made as the
 * user who published the view (who must still be able to edit the sheet; 1004 otherwise), with
 * the access token name "published view" in the change log. `values` are the cells' new text by
 * column id; an empty text clears the cell.
 */
export async function editPublishedRow(store: SheetStore, opened: OpenedPublication, rowId: number, values: ReadonlyMap<number, string>): Promise<void> {
  if (opened.type !== 'sheet' || opened.kind !== 'readWrite') throw apiError(1004);
  if (values.size === 0) return;
  const user = await findUserById(store.db, opened.publishedBy);
  const base = user ? await actorFor(store.db, user) : undefined;
  if (!base) throw apiError(1004);
  const actor: Actor = { ...base, tokenName: 'published view' };
  const cells = [...values].map(([columnId, value]) => ({ columnId, value: value === '' ? null : value }));
  await updateRows(store, actor, opened.sheet.id, [{ id: rowId, cells }], { allowPartialSuccess: false, overrideValidation: false, numericDates: false, level: 0 });
}
