import type { Selectable } from 'kysely';
import type { OrgTable, UserTable } from '../../store/schema.ts';
import type { Scope } from '../access/scopes.ts';

export type UserRow = Selectable<UserTable>;
export type OrgRow = Selectable<OrgTable>;

/** Who is asking: built once per request by the auth layer, passed to every service call. */
export interface Actor {
  /** The user the request acts as (the assumed user under Assume-User). */
  user: UserRow;
  /** The user whose token made the request (differs from `user` under Assume-User). */
  requestUser: UserRow;
  org: OrgRow;
  tokenId: number;
  tokenName: string;
  scopes: Set<Scope> | 'ALL';
  /** OAuth app id when the token came from OAuth, else null. */
  apiClientId: number | null;
  /** The request's Smartsheet-Change-Agent header (at most 512 characters, the end kept), recorded with its events. */
  changeAgent?: string | null;
  /** The source its events record (default API). */
  source?: string;
  /**
   * Set when the change is made for someone without an account (an update request's recipient):
   * cells and events record no user but this address. `user` is then whose rights the write uses.
   */
  guestEmail?: string;
}

/** Options every read can carry (query parameters of spec 4.1). */
export interface ReadOptions {
  include: ReadonlySet<string>;
  exclude: ReadonlySet<string>;
  numericDates: boolean;
  level: number;
  accessApiLevel: number;
}

/** How a person is named where a contact shows: first and last name, else the email address. */
export function nameOrEmail(u: Pick<UserRow, 'first_name' | 'last_name' | 'email'>): string {
  return [u.first_name, u.last_name].filter((s) => s).join(' ') || u.email;
}
