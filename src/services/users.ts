import type { Queryable } from '../store/db.ts';
import { findUserByEmail, insertUser } from '../store/users.ts';
import { newId } from '../ids.ts';
import { apiError } from '../errors.ts';
import { authorOf, recordEvents, type EventAuthor } from './events.ts';
import type { UserRow } from './context.ts';

export interface NewUser {
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  admin?: boolean;
  licensedSheetCreator?: boolean;
  groupAdmin?: boolean;
  resourceViewer?: boolean;
}

// A pragmatic address check: one @, a dotted domain, no spaces.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isValidEmail(email: unknown): email is string {
  return typeof email === 'string' && email.length <= 254 && EMAIL.test(email);
}

/** Adds a user to an organization (the command line and, later, POST /users use this). */
export async function createUser(db: Queryable, author: EventAuthor, orgId: number, u: NewUser, now = Date.now()): Promise<UserRow> {
  if (!isValidEmail(u.email)) throw apiError(1156);
  const email = u.email.toLowerCase();
  if (await findUserByEmail(db, email)) throw apiError(1016);
  const row: UserRow = {
    id: newId(),
    org_id: orgId,
    email,
    first_name: u.firstName ?? null,
    last_name: u.lastName ?? null,
    admin: u.admin ? 1 : 0,
    licensed_sheet_creator: u.licensedSheetCreator || u.admin ? 1 : 0,
    group_admin: u.groupAdmin || u.admin ? 1 : 0,
    resource_viewer: u.resourceViewer ? 1 : 0,
    status: 'ACTIVE',
    locale: 'en_US',
    time_zone: 'UTC',
    company: null,
    department: null,
    role: null,
    title: null,
    mobile_phone: null,
    work_phone: null,
    last_login: null,
    created_at: now,
    modified_at: now,
  };
  await insertUser(db, row);
  await recordEvents(db, author, [{ objectType: 'USER', action: 'ADD_TO_ACCOUNT', objectId: row.id, details: { email } }], now);
  return row;
}

/** Add User (POST /users): system admins only; the body is the User object of the reference. */
export async function addUser(db: Queryable, actor: import('./context.ts').Actor, body: unknown): Promise<UserRow> {
  if (!actor.user.admin) throw apiError(1004);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw apiError(1008, 'expected a User object');
  const b = body as Record<string, unknown>;
  if (b.email === undefined || b.email === null || b.email === '') throw apiError(1012, 'email');
  if (!isValidEmail(b.email)) throw apiError(1156);
  for (const k of ['firstName', 'lastName'] as const) {
    if (b[k] !== undefined && b[k] !== null && typeof b[k] !== 'string') throw apiError(1031, String(b[k]), k);
  }
  for (const k of ['admin', 'licensedSheetCreator', 'groupAdmin', 'resourceViewer'] as const) {
    if (b[k] !== undefined && typeof b[k] !== 'boolean') throw apiError(1031, String(b[k]), k);
  }
  return createUser(db, authorOf(actor), actor.org.id, {
    email: b.email,
    firstName: (b.firstName as string | undefined) ?? null,
    lastName: (b.lastName as string | undefined) ?? null,
    admin: b.admin === true,
    licensedSheetCreator: b.licensedSheetCreator === true,
    groupAdmin: b.groupAdmin === true,
    resourceViewer: b.resourceViewer === true,
  });
}
