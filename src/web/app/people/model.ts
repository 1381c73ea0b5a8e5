import { api, type Page } from '../api.ts';

/** What the People page reads of a user (List Users, Get User as a system admin sees them). */
export interface Person {
  id: number;
  email: string;
  name?: string;
  firstName?: string;
  lastName?: string;
  admin?: boolean;
  licensedSheetCreator?: boolean;
  groupAdmin?: boolean;
  resourceViewer?: boolean;
  status?: string;
  sheetCount?: number;
}

/** How a person is named in the page: their name, or their address. */
export function nameOf(p: Pick<Person, 'email' | 'firstName' | 'lastName'>): string {
  return [p.firstName, p.lastName].filter(Boolean).join(' ') || p.email;
}

/** Every member of the organization (the transfer and group-member choices). */
export async function everyone(): Promise<Person[]> {
  const r = await api.get<Page<Person>>('/users', { includeAll: true });
  return r.data;
}
