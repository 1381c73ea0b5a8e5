/**
 * Tables of the organization domain: groups and their members, alternate email addresses and
 * the organization's validated email domains. Same conventions as schema.ts (0/1 booleans,
 * epoch-millisecond times).
 */
export interface GroupTable {
  id: number;
  org_id: number;
  name: string;
  description: string | null;
  owner_id: number;
  created_at: number;
  modified_at: number;
}

/** Membership of a user in a group (the sharing engine resolves group shares through it). */
export interface GroupMemberTable {
  group_id: number;
  user_id: number;
}

export interface AlternateEmailTable {
  id: number;
  user_id: number;
  /** lower case; unique across primary and alternate addresses (the service checks primaries) */
  email: string;
  confirmed: number;
  created_at: number;
}

/** Email domains the organization has proven it owns (lower case, e.g. `example.com`). */
export interface ValidatedDomainTable {
  org_id: number;
  domain: string;
  created_at: number;
}

export interface OrgTables {
  groups: GroupTable;
  group_members: GroupMemberTable;
  alternate_emails: AlternateEmailTable;
  validated_domains: ValidatedDomainTable;
}
