import { ApiError, api, showError, showMessage, type Page, type Result } from '../api.ts';
import { dialog, menuDialog, formatTime, h } from '../dom.ts';
import { Problem, checkField, formDialog, input, refusalText, select, textField } from './forms.ts';
import { mountGroups } from './groups.ts';
import { everyone, nameOf, type Person } from './model.ts';

/**
 * People (system admins): the organization's users as List Users pages them (50 a page; a
 * search by name or any part of an address, over everyone), each with name, address, roles and status. Add a person (with a
 * one-time sign-in link: POST /2.0/sheetd/users/{id}/passwordlink), change names and roles,
 * make a new sign-in link, deactivate and reactivate, remove (choosing whom their sheets and
 * groups go to). Everything is a call of the public API; the server's refusals are shown in the
 * dialog that asked. Below, the organization's groups (groups.ts).
 */

interface PasswordLink {
  userId: number;
  email: string;
  url: string;
  expiresAt: string;
  emailed: boolean;
}

const PAGE_SIZE = 50;

function rolesOf(p: Person): string {
  const roles: string[] = [];
  if (p.admin) roles.push('System admin');
  if (p.licensedSheetCreator) roles.push('Licensed');
  if (p.groupAdmin) roles.push('Group admin');
  if (p.resourceViewer) roles.push('Resource viewer');
  return roles.length > 0 ? roles.join(', ') : 'Unlicensed';
}

const STATUS: Record<string, string> = { ACTIVE: 'Active', DEACTIVATED: 'Deactivated', PENDING: 'Invited' };

export async function mountPeople(root: HTMLElement): Promise<void> {
  const me = Number(root.dataset.userId);
  const mails = root.dataset.mail === 'smtp';
  const state = { page: 1, query: '', result: null as Page<Person> | null };

  const find = h('input', { type: 'search', id: 'people-find', name: 'q', autocomplete: 'off', placeholder: 'A name or an address' });
  const findForm = h('form', { class: 'people-find', role: 'search', 'aria-label': 'Find a person' },
    h('label', { for: 'people-find' }, 'Find by name or email address'), find, h('button', { type: 'submit' }, 'Find'));
  const addButton = h('button', { type: 'button' }, 'Add person');
  const summary = h('p', { class: 'note', id: 'people-summary', 'aria-live': 'polite' });
  const list = h('div', { class: 'people-list' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of people' });
  const groups = h('section', { class: 'groups-section', 'aria-labelledby': 'groups-title' });
  root.classList.add('people-page');
  root.replaceChildren(
    h('div', { class: 'page-head' }, h('h1', {}, 'People'), addButton),
    h('section', { 'aria-labelledby': 'people-title' }, h('h2', { id: 'people-title', class: 'visually-hidden' }, 'People of your organization'), findForm, summary, list, pager),
    groups,
  );

  addButton.addEventListener('click', () => void addPerson(addButton));
  findForm.addEventListener('submit', (e) => {
    e.preventDefault();
    state.query = find.value.trim().toLowerCase();
    state.page = 1;
    void load();
  });

  async function load(): Promise<void> {
    try {
      state.result = state.query ? await matching(state.query, state.page) : await api.get<Page<Person>>('/users', { page: state.page, pageSize: PAGE_SIZE });
      draw();
    } catch (e) {
      showError(e);
    }
  }

  /**
   * The people whose name or address holds the words typed, as a page of 50: List Users finds
   * by whole addresses only, so the page reads everyone (includeAll) and looks through them.
   */
  async function matching(query: string, page: number): Promise<Page<Person>> {
    const words = query.split(/\s+/).filter(Boolean);
    const all = (await everyone()).filter((p) => {
      const text = `${p.firstName ?? ''} ${p.lastName ?? ''} ${p.email}`.toLowerCase();
      return words.every((w) => text.includes(w));
    });
    const totalPages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
    const pageNumber = Math.min(page, totalPages);
    return { pageNumber, pageSize: PAGE_SIZE, totalPages, totalCount: all.length, data: all.slice((pageNumber - 1) * PAGE_SIZE, pageNumber * PAGE_SIZE) };
  }

  function draw(): void {
    const r = state.result!;
    const people = r.data;
    const found = r.totalCount === 0 ? 'Nobody matches' : r.totalCount === 1 ? '1 person matches' : `${r.totalCount} people match`;
    if (state.query) summary.replaceChildren(`${found} “${state.query}”. `, h('button', { type: 'button', class: 'link', onclick: (() => {
      state.query = '';
      find.value = '';
      state.page = 1;
      void load();
    }) as EventListener }, 'Show everyone'));
    else summary.textContent = r.totalCount === 1 ? '1 person' : `${r.totalCount} people`;
    const table = h('table', { class: 'items people' }, h('caption', { class: 'visually-hidden' }, 'People of your organization'));
    table.append(h('thead', {}, h('tr', {}, ...['Name', 'Email', 'Roles', 'Status'].map((t) => h('th', { scope: 'col' }, t)), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))));
    const body = h('tbody');
    for (const p of people) {
      const more = h('button', { type: 'button', class: 'secondary small', 'aria-haspopup': 'dialog', 'aria-label': `Actions for ${nameOf(p)}` }, 'Actions…');
      more.addEventListener('click', () => void personMenu(p, more));
      body.append(h('tr', { 'data-user-id': p.id },
        h('td', { class: 'name' }, nameOf(p), p.id === me ? h('span', { class: 'badge' }, 'you') : null),
        h('td', {}, p.email),
        h('td', {}, rolesOf(p)),
        h('td', { class: `status status-${(p.status ?? '').toLowerCase()}` }, STATUS[p.status ?? ''] ?? p.status ?? ''),
        h('td', { class: 'row-actions' }, more)));
    }
    table.append(body);
    list.replaceChildren(table);
    pager.replaceChildren();
    if (r.totalPages > 1) {
      const prev = h('button', { type: 'button', class: 'secondary', disabled: r.pageNumber <= 1 }, 'Previous page');
      const next = h('button', { type: 'button', class: 'secondary', disabled: r.pageNumber >= r.totalPages }, 'Next page');
      prev.addEventListener('click', () => void turn(-1, prev));
      next.addEventListener('click', () => void turn(1, next));
      pager.append(prev, h('span', {}, `Page ${r.pageNumber} of ${r.totalPages}`), next);
    }
  }

  async function turn(by: number, button: HTMLButtonElement): Promise<void> {
    state.page = Math.max(1, state.page + by);
    await load();
    const same = pager.querySelectorAll('button')[by < 0 ? 0 : 1];
    (same && !same.disabled ? same : pager.querySelector<HTMLButtonElement>('button:not([disabled])') ?? button).focus();
  }

  /** After a change: the page again, and the keyboard back on the person's Actions button (or the opener). */
  async function reload(personId: number | null, opener: HTMLElement): Promise<void> {
    await load();
    const again = personId === null ? null : list.querySelector<HTMLElement>(`tr[data-user-id="${personId}"] .row-actions button`);
    (again ?? (document.contains(opener) ? opener : addButton)).focus();
  }

  /** The roles fieldset: what a role needs is checked and fixed (an admin is licensed and a group admin; a group admin or resource viewer is licensed). */
  function rolesFieldset(p: Partial<Person>, self: boolean): HTMLFieldSetElement {
    const fs = h('fieldset', { class: 'roles' }, h('legend', {}, 'Roles'),
      checkField('admin', 'System admin', !!p.admin, self ? 'You cannot take away your own admin role.' : 'Manages people, groups and the organization’s settings.'),
      checkField('licensed', 'Licensed', !!p.licensedSheetCreator, 'May create and own sheets.'),
      checkField('groupAdmin', 'Group admin', !!p.groupAdmin, 'May create and manage groups.'),
      checkField('resourceViewer', 'Resource viewer', !!p.resourceViewer));
    const box = (n: string) => fs.querySelector<HTMLInputElement>(`input[name="${n}"]`)!;
    const admin = box('admin');
    const licensed = box('licensed');
    const groupAdmin = box('groupAdmin');
    const viewer = box('resourceViewer');
    if (self && admin.checked) admin.disabled = true;
    const sync = () => {
      if (admin.checked) {
        licensed.checked = true;
        groupAdmin.checked = true;
      }
      licensed.disabled = admin.checked;
      if (!licensed.checked) {
        groupAdmin.checked = false;
        viewer.checked = false;
      }
      groupAdmin.disabled = admin.checked || !licensed.checked;
      viewer.disabled = !licensed.checked;
    };
    for (const b of [admin, licensed, groupAdmin, viewer]) b.addEventListener('change', sync);
    sync();
    return fs;
  }

  const roles = (form: HTMLFormElement) => ({
    admin: input(form, 'admin').checked,
    licensedSheetCreator: input(form, 'licensed').checked,
    groupAdmin: input(form, 'groupAdmin').checked,
    resourceViewer: input(form, 'resourceViewer').checked,
  });

  async function addPerson(opener: HTMLElement): Promise<void> {
    const made = await formDialog<{ person: Person; link: PasswordLink | null; linkError: unknown }>('Add person', 'Add', (form) => {
      form.append(
        ...textField('email', 'Email address', '', { type: 'email', required: true, autocomplete: 'off' }),
        ...textField('firstName', 'First name', '', { autocomplete: 'off' }),
        ...textField('lastName', 'Last name', '', { autocomplete: 'off' }),
        rolesFieldset({ licensedSheetCreator: true }, false),
        checkField('makeLink', 'Make a sign-in link', true, mails ? 'A link to choose a password, also emailed to the person.' : 'A link to choose a password, for you to give to the person.'),
      );
    }, async (form) => {
      const email = input(form, 'email').value.trim();
      if (!email) throw new Problem('Type the person’s email address.');
      const res = await api.post<Result<Person>>('/users', { email, firstName: input(form, 'firstName').value, lastName: input(form, 'lastName').value, ...roles(form) });
      const person = res.result;
      if (!input(form, 'makeLink').checked) return { person, link: null, linkError: null };
      try {
        return { person, link: (await api.post<Result<PasswordLink>>(`/sheetd/users/${person.id}/passwordlink`, { sendEmail: true })).result, linkError: null };
      } catch (e) {
        return { person, link: null, linkError: e };
      }
    });
    if (!made) {
      opener.focus();
      return;
    }
    showMessage(`${nameOf(made.person)} was added.`, 'note');
    await reload(made.person.id, opener);
    if (made.link) await showLink(made.person, made.link);
    else if (made.linkError) showMessage(`${nameOf(made.person)} was added, but no sign-in link was made: ${refusalText(made.linkError)}`);
    list.querySelector<HTMLElement>(`tr[data-user-id="${made.person.id}"] .row-actions button`)?.focus();
  }

  /** The link, to copy and hand over; says whether the server mailed it. */
  async function showLink(p: Person, link: PasswordLink): Promise<void> {
    await dialog<true>(`Sign-in link for ${nameOf(p)}`, (body, done) => {
      const field = h('input', { id: 'p-link', type: 'text', readonly: true, value: link.url, 'aria-describedby': 'p-link-hint' });
      const copy = h('button', { type: 'button', class: 'secondary' }, 'Copy link');
      copy.addEventListener('click', () => {
        field.select();
        void navigator.clipboard?.writeText(link.url).then(() => showMessage('Link copied.', 'note'), () => undefined);
      });
      const close = h('button', { type: 'button' }, 'Done');
      close.addEventListener('click', () => done(true));
      const mailed = !link.emailed ? 'It was not emailed: give it to them yourself.'
        : mails ? `A message with this link was sent to ${p.email}.`
          : `This server sends no mail (no SMTP_URL is set; the message went to its outbox): give the link to ${p.email} yourself.`;
      body.append(
        h('p', { id: 'p-link-hint' }, `With this link ${p.email} chooses a password. It works once, until ${formatTime(link.expiresAt)}.`),
        h('label', { for: 'p-link' }, 'Sign-in link'),
        h('div', { class: 'link-line' }, field, copy),
        h('p', { class: 'note', role: 'status' }, mailed),
        h('div', { class: 'modal-actions' }, close),
      );
      queueMicrotask(() => field.select());
    });
  }

  async function personMenu(p: Person, opener: HTMLElement): Promise<void> {
    const self = p.id === me;
    const active = p.status === 'ACTIVE';
    const choices: Array<[string, string]> = [
      ['edit', 'Edit name and roles…'],
      ...(active ? [['link', 'Sign-in link…'] as [string, string]] : []),
      ...(!self && active ? [['deactivate', 'Deactivate…'] as [string, string]] : []),
      ...(!self && p.status === 'DEACTIVATED' ? [['reactivate', 'Reactivate'] as [string, string]] : []),
      ...(!self ? [['remove', 'Remove from the organization…'] as [string, string]] : []),
    ];
    const pick = await menuDialog(`${nameOf(p)} (${p.email})`, choices);
    if (pick === null) {
      opener.focus();
      return;
    }
    if (pick === 'edit') await edit(p, opener);
    else if (pick === 'link') await newLink(p, opener);
    else if (pick === 'deactivate') await deactivate(p, opener);
    else if (pick === 'reactivate') await reactivate(p, opener);
    else if (pick === 'remove') await remove(p, opener);
  }

  async function edit(p: Person, opener: HTMLElement): Promise<void> {
    const saved = await formDialog<Person>(`Edit ${nameOf(p)}`, 'Save', (form) => {
      form.append(
        h('p', {}, 'Email address: ', h('strong', {}, p.email)),
        ...textField('firstName', 'First name', p.firstName ?? '', { autocomplete: 'off' }),
        ...textField('lastName', 'Last name', p.lastName ?? '', { autocomplete: 'off' }),
        rolesFieldset(p, p.id === me),
      );
    }, async (form) => {
      const res = await api.put<Result<Person>>(`/users/${p.id}`, { firstName: input(form, 'firstName').value, lastName: input(form, 'lastName').value, ...roles(form) });
      return res.result;
    });
    if (saved) showMessage(`${nameOf(saved)} was changed.`, 'note');
    await reload(p.id, opener);
  }

  async function newLink(p: Person, opener: HTMLElement): Promise<void> {
    const link = await formDialog<PasswordLink>(`Sign-in link for ${nameOf(p)}`, 'Make link', (form) => {
      form.append(
        h('p', {}, `A new link with which ${p.email} chooses a password (their present password keeps working until they do). A link made for them before stops working.`),
        checkField('sendEmail', 'Email the link to them', mails, mails ? undefined : 'This server sends no mail (no SMTP_URL is set): messages go to its outbox.'),
      );
    }, async (form) => (await api.post<Result<PasswordLink>>(`/sheetd/users/${p.id}/passwordlink`, { sendEmail: input(form, 'sendEmail').checked })).result);
    if (link) await showLink(p, link);
    opener.focus();
  }

  async function deactivate(p: Person, opener: HTMLElement): Promise<void> {
    const done = await formDialog<true>(`Deactivate ${nameOf(p)}`, 'Deactivate', (form) => {
      form.append(h('p', {}, `${p.email} can no longer sign in or use their API tokens until you reactivate them. Their sheets, shares and groups stay as they are.`));
    }, async () => {
      await api.post(`/users/${p.id}/deactivate`);
      return true;
    }, { danger: true });
    if (done) showMessage(`${nameOf(p)} was deactivated.`, 'note');
    await reload(p.id, opener);
  }

  async function reactivate(p: Person, opener: HTMLElement): Promise<void> {
    try {
      await api.post(`/users/${p.id}/reactivate`);
      showMessage(`${nameOf(p)} was reactivated.`, 'note');
    } catch (e) {
      showMessage(refusalText(e));
    }
    await reload(p.id, opener);
  }

  async function remove(p: Person, opener: HTMLElement): Promise<void> {
    let detail: Person;
    let others: Person[];
    let owned: Array<{ id: number; name: string }>;
    try {
      const [d, all, gs] = await Promise.all([
        api.get<Person>(`/users/${p.id}`),
        everyone(),
        api.get<Page<{ id: number; name: string; ownerId: number }>>('/groups', { includeAll: true }),
      ]);
      detail = d;
      others = all.filter((u) => u.id !== p.id && u.status === 'ACTIVE');
      owned = gs.data.filter((g) => g.ownerId === p.id);
    } catch (e) {
      showError(e);
      opener.focus();
      return;
    }
    const sheets = detail.sheetCount ?? 0;
    const needsTarget = owned.length > 0;
    const removed = await formDialog<true>(`Remove ${nameOf(p)}`, 'Remove', (form) => {
      const facts: string[] = [];
      facts.push(sheets === 0 ? 'They own no sheets.' : sheets === 1 ? 'They own 1 sheet.' : `They own ${sheets} sheets.`);
      if (owned.length > 0) facts.push(`They own ${owned.length === 1 ? 'the group' : 'the groups'} ${owned.map((g) => g.name).join(', ')}, which must go to someone else (a group admin).`);
      const candidates = needsTarget ? others.filter((u) => u.groupAdmin) : others;
      const target = h('select', { id: 'p-transferTo', name: 'transferTo' },
        ...(needsTarget ? [] : [h('option', { value: '' }, 'Nobody: their sheets stay theirs')]),
        ...candidates.map((u) => h('option', { value: u.id }, `${nameOf(u)} (${u.email})`)));
      form.append(
        h('p', {}, `${p.email} leaves the organization: they can no longer sign in, their API tokens stop working and they leave every group. Adding the address again brings the account back.`),
        h('p', {}, facts.join(' ')),
        h('label', { for: 'p-transferTo' }, needsTarget ? 'Give their groups to' : 'Transfer to'),
        target,
      );
      if (sheets > 0) form.append(checkField('transferSheets', 'Transfer their sheets too', true, 'Otherwise the sheets stay theirs, and stay shared as they are.'));
      const sheetsBox = form.querySelector<HTMLInputElement>('input[name="transferSheets"]');
      const syncSheets = () => {
        if (sheetsBox) sheetsBox.disabled = target.value === '';
      };
      target.addEventListener('change', syncSheets);
      syncSheets();
    }, async (form) => {
      const to = select(form, 'transferTo').value;
      const sheetsBox = form.querySelector<HTMLInputElement>('input[name="transferSheets"]');
      try {
        await api.del(`/users/${p.id}`, {
          transferTo: to || undefined,
          transferSheets: to && sheetsBox && !sheetsBox.disabled && sheetsBox.checked ? true : undefined,
        });
      } catch (e) {
        // here 1076 is about the one who takes the sheets over, not about the person leaving
        if (e instanceof ApiError && e.errorCode === 1076) throw new Problem('The person who takes over the sheets must be licensed: choose someone licensed, or leave the sheets with their owner.');
        throw e;
      }
      return true;
    }, { danger: true });
    if (removed) showMessage(`${nameOf(p)} was removed from the organization.`, 'note');
    await reload(removed ? null : p.id, opener);
  }

  await load();
  await mountGroups(groups);
  document.body.dataset.peopleReady = 'true';
}
