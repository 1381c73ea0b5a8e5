/** OAuth access scopes of spec section 5. Raw API tokens carry all of them. */
export const SCOPES = [
  'ADMIN_SHEETS', 'ADMIN_SIGHTS', 'ADMIN_USERS', 'ADMIN_WEBHOOKS', 'ADMIN_WORKSPACES',
  'CREATE_SHEETS', 'CREATE_SIGHTS', 'DELETE_SHEETS', 'DELETE_SIGHTS', 'READ_CONTACTS',
  'READ_EVENTS', 'READ_SHEETS', 'READ_SIGHTS', 'READ_USERS', 'SHARE_SHEETS', 'SHARE_SIGHTS',
  'WRITE_SHEETS',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/** Parses a stored or requested scope list ("*" = all; space or comma separated). */
export function parseScopes(text: string): Set<Scope> | 'ALL' {
  if (text.trim() === '*') return 'ALL';
  const out = new Set<Scope>();
  for (const part of text.split(/[\s,]+/)) {
    if (part === '') continue;
    if (!isScope(part)) throw new Error(`unknown scope ${part}`);
    out.add(part);
  }
  return out;
}

export function hasScope(granted: Set<Scope> | 'ALL', needed: Scope): boolean {
  return granted === 'ALL' || granted.has(needed);
}
