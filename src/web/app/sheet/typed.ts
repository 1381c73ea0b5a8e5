import { api } from '../api.ts';
import type { SheetModel } from './model.ts';
import type { Column } from './types.ts';
import { mergePeople, type Person } from './contacts.ts';
import { dayOrder, type DayOrder } from './dates.ts';
import { contactValues, inputFromText, type CellInput, type Refusal, type TextContext } from './values.ts';

/**
 * Reading text typed or pasted into cells (values.ts inputFromText) with what the page knows:
 * the browser's order of days, and for contact columns the people a name may stand for.
 */

let people: Promise<Person[]> | null = null;
/** The people once loaded (null until then). */
let peopleLoaded: Person[] | null = null;

/** The org's users and the person's contacts, for the contact pickers and typed names (loaded once per page). */
export function loadPeople(): Promise<Person[]> {
  people ??= (async () => {
    const [users, contacts] = await Promise.all([
      api.get<{ data: Array<{ email: string; name?: string; firstName?: string; lastName?: string }> }>('/users', { includeAll: true }).catch(() => ({ data: [] })),
      api.get<{ data: Array<{ email: string; name?: string }> }>('/contacts', { includeAll: true }).catch(() => ({ data: [] })),
    ]);
    const us = users.data.map((u) => ({ email: u.email, name: u.name || [u.firstName, u.lastName].filter(Boolean).join(' ') || undefined }));
    peopleLoaded = mergePeople(us, contacts.data).sort((a, b) => (a.name ?? a.email).localeCompare(b.name ?? b.email));
    return peopleLoaded;
  })();
  return people;
}

/** The contacts in the sheet's contact cells (names people have given them there). */
export function peopleInSheet(model: SheetModel): Person[] {
  const cols = model.columns.filter((c) => c.type === 'CONTACT_LIST' || c.type === 'MULTI_CONTACT_LIST').map((c) => c.id);
  if (cols.length === 0) return [];
  const out: Person[] = [];
  for (const row of model.rows.values()) {
    for (const id of cols) {
      const c = row.cells.get(id);
      if (c?.objectValue) out.push(...contactValues(c));
    }
  }
  return mergePeople(out);
}

let order: DayOrder | null = null;

/** What reading text typed into a cell of `col` needs (people only for contact columns). */
export async function textContext(model: SheetModel, col: Column): Promise<TextContext> {
  order ??= dayOrder();
  if (col.type !== 'CONTACT_LIST' && col.type !== 'MULTI_CONTACT_LIST') return { order };
  return { order, people: mergePeople(col.contactOptions ?? [], await loadPeople(), peopleInSheet(model)) };
}

/** textContext at once, or null while the people a contact column needs are still being loaded. */
export function textContextNow(model: SheetModel, col: Column): TextContext | null {
  order ??= dayOrder();
  if (col.type !== 'CONTACT_LIST' && col.type !== 'MULTI_CONTACT_LIST') return { order };
  if (peopleLoaded === null) return null;
  return { order, people: mergePeople(col.contactOptions ?? [], peopleLoaded, peopleInSheet(model)) };
}

/** Text typed into a cell of `col`: what to send, or why not. */
export async function readText(model: SheetModel, col: Column, text: string): Promise<CellInput | Refusal> {
  return inputFromText(col, text, await textContext(model, col));
}
