import type { OrgRow, ReadOptions, UserRow } from '../../services/context.ts';
import { optTs } from '../present.ts';

export function fullName(u: Pick<UserRow, 'first_name' | 'last_name' | 'email'>): string {
  const n = [u.first_name, u.last_name].filter((s) => s && s.trim() !== '').join(' ');
  return n === '' ? u.email : n;
}

/** The User object of List Users and Add User. */
export function user(u: UserRow, ro: ReadOptions) {
  const out: Record<string, unknown> = {
    id: u.id,
    email: u.email,
    name: fullName(u),
    firstName: u.first_name ?? undefined,
    lastName: u.last_name ?? undefined,
    admin: !!u.admin,
    licensedSheetCreator: !!u.licensed_sheet_creator,
    groupAdmin: !!u.group_admin,
    resourceViewer: !!u.resource_viewer,
    status: u.status,
  };
  if (ro.include.has('lastLoginTime')) {
    const last = optTs(u.last_login, ro.numericDates);
    if (last !== undefined) out.lastLogin = last;
  }
  return out;
}

/** The UserProfile object of Get Current User / Get User. */
export function userProfile(u: UserRow, org: OrgRow, ro: ReadOptions, opts: { viewerIsAdmin: boolean }) {
  const out: Record<string, unknown> = {
    id: u.id,
    email: u.email,
    firstName: u.first_name ?? undefined,
    lastName: u.last_name ?? undefined,
    locale: u.locale,
    timeZone: u.time_zone,
    account: { id: org.id, name: org.name },
    admin: !!u.admin,
    licensedSheetCreator: !!u.licensed_sheet_creator,
    groupAdmin: !!u.group_admin,
    resourceViewer: !!u.resource_viewer,
    jiraAdmin: false,
    salesforceAdmin: false,
    salesforceUser: false,
    title: u.title ?? undefined,
    department: u.department ?? undefined,
    company: u.company ?? undefined,
    role: u.role ?? undefined,
    mobilePhone: u.mobile_phone ?? undefined,
    workPhone: u.work_phone ?? undefined,
    alternateEmails: [],
  };
  if (opts.viewerIsAdmin) {
    if (u.status === 'ACTIVE') out.sheetCount = 0;
    const last = optTs(u.last_login, ro.numericDates);
    if (last !== undefined) out.lastLogin = last;
  }
  return out;
}
