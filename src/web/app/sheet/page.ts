import { api, showError } from '../api.ts';
import { h } from '../dom.ts';

/** The sheet page. */
export async function mountSheet(root: HTMLElement, sheetId: number, _who: { userId: number; userEmail: string }): Promise<void> {
  try {
    const sheet = await api.get<{ name: string }>(`/sheets/${sheetId}`);
    root.replaceChildren(h('h1', {}, sheet.name));
  } catch (e) {
    showError(e);
  }
}
