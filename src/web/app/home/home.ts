import { api, showError } from '../api.ts';
import { h } from '../dom.ts';

/** Home: the person's items as GET /2.0/home sees them. */
export async function mountHome(root: HTMLElement): Promise<void> {
  root.replaceChildren(h('h1', {}, 'Home'));
  try {
    const home = await api.get<{ sheets?: Array<{ id: number; name: string }> }>('/home');
    const list = h('ul', { class: 'items' });
    for (const s of home.sheets ?? []) list.append(h('li', {}, h('a', { href: `/sheets/${s.id}` }, s.name)));
    root.append(list);
  } catch (e) {
    showError(e);
  }
}
