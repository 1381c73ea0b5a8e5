import type { OrgRow, ReadOptions, UserRow } from '../../services/platform/context.ts';
import type { AlternateEmailRow } from '../../store/alternateEmails.ts';
import type { ContactEntry } from '../../services/identity/contacts.ts';
import { contactId } from '../../services/identity/contacts.ts';
import { optTs } from './dates.ts';

export function fullName(u: Pick<UserRow, 'first_name' | 'last_name' | 'email'>): string {
  const n = [u.first_name, u.last_name].filter((s) => s && s.trim() !== '').join(' ');
  return n === '' ? u.email : n;
}

export interface UserView {
  /** System admins see roles, status, sheet counts and last login; others do not. */
  viewerIsAdmin: boolean;
  sheetCount?: number;
  /** include=lastLogin (or lastLoginTime) asked, and the page is small enough (at most 100 users). */
  lastLogin?: boolean;
}

/** The User object of List Users, Add User and Update User. */
export function user(u: UserRow, ro: ReadOptions, view: UserView = { viewerIsAdmin: true }) {
  const out: Record<string, unknown> = {
    id: u.id,
    email: u.email,
    name: fullName(u),
    firstName: u.first_name ?? undefined,
    lastName: u.last_name ?? undefined,
  };
  if (view.viewerIsAdmin) {
    out.admin = !!u.admin;
    out.licensedSheetCreator = !!u.licensed_sheet_creator;
    out.groupAdmin = !!u.group_admin;
    out.resourceViewer = !!u.resource_viewer;
    out.status = u.status;
    if (view.sheetCount !== undefined && u.status === 'ACTIVE') out.sheetCount = view.sheetCount;
    if (view.lastLogin) {
      const last = optTs(u.last_login, ro.numericDates);
      if (last !== undefined) out.lastLogin = last;
    }
  }
  return out;
}

export function alternateEmail(a: AlternateEmailRow) {
  return { id: a.id, email: a.email, confirmed: !!a.confirmed };
}

export interface ProfileView {
  /** The caller may see roles (a system admin, or the user reading their own profile). */
  showRoles: boolean;
  /** The caller is a system admin: sheetCount, lastLogin (and status for Get User). */
  viewerIsAdmin: boolean;
  sheetCount: number;
  alternateEmails: AlternateEmailRow[];
  status?: boolean;
  profileImage?: { imageId: string; width: number; height: number } | undefined;
}

/** The UserProfile object of Get Current User / Get User. */
export function userProfile(u: UserRow, org: OrgRow, ro: ReadOptions, view: ProfileView) {
  // one literal in the answer's order (a member left undefined is not sent): Get Current User is
  // the API's most frequent call, and members added one by one or by Object.assign cost it more
  const roles = view.showRoles;
  const out: Record<string, unknown> = {
    id: u.id,
    email: u.email,
    firstName: u.first_name ?? undefined,
    lastName: u.last_name ?? undefined,
    locale: u.locale,
    timeZone: u.time_zone,
    account: { id: org.id, name: org.name },
    admin: roles ? !!u.admin : undefined,
    licensedSheetCreator: roles ? !!u.licensed_sheet_creator : undefined,
    groupAdmin: roles ? !!u.group_admin : undefined,
    resourceViewer: roles ? !!u.resource_viewer : undefined,
    jiraAdmin: false,
    salesforceAdmin: false,
    salesforceUser: false,
    title: u.title ?? undefined,
    department: u.department ?? undefined,
    company: u.company ?? undefined,
    role: u.role ?? undefined,
    mobilePhone: u.mobile_phone ?? undefined,
    workPhone: u.work_phone ?? undefined,
    alternateEmails: view.alternateEmails.map(alternateEmail),
    profileImage: view.profileImage,
  };
  if (view.viewerIsAdmin) {
    if (view.status) out.status = u.status;
    if (u.status === 'ACTIVE') out.sheetCount = view.sheetCount;
    const last = optTs(u.last_login, ro.numericDates);
    if (last !== undefined) out.lastLogin = last;
  }
  return out;
}

export function contact(c: ContactEntry) {
  const name = [c.firstName, c.lastName].filter((s) => s && s.trim() !== '').join(' ');
  return { id: contactId(c.email), name: name === '' ? c.email : name, email: c.email };
}
