import { getFile, showError, showMessage } from './api.ts';
import { menuDialog, h } from './dom.ts';

/**
 * Download… on the sheet and report pages: a menu of the files Get Sheet (Get Report) answers
 * by Accept header, and the chosen one saved by the browser under the name the server gives
 * (the sheet's name and the type's extension). A link to the API cannot be followed to a file:
 * the page's session needs its CSRF header and the type is asked for by Accept, so the file is
 * read with fetch and handed to the browser as a Blob URL (the page's Content-Security-Policy
 * leaves downloads alone).
 */

export interface FileFormat {
  /** What the menu says. */
  label: string;
  accept: string;
  extension: string;
}

const EXCEL: FileFormat = { label: 'Excel (.xlsx)', accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' };
const CSV: FileFormat = { label: 'CSV (.csv)', accept: 'text/csv', extension: 'csv' };
const PDF: FileFormat = { label: 'PDF (.pdf)', accept: 'application/pdf', extension: 'pdf' };

/** Get Sheet's files (src/http/routes/sheetContents.ts) and Get Report's (reports.ts: no PDF). */
export const SHEET_FILES: readonly FileFormat[] = [EXCEL, CSV, PDF];
export const REPORT_FILES: readonly FileFormat[] = [EXCEL, CSV];

/**
 * Opens the menu of `formats` for the object at `path` (/sheets/{id}, /reports/{id}) named
 * `name`, then reads the chosen file and saves it. The focus goes back to `opener`; a refusal
 * is said in the page's status area.
 */
export async function downloadMenu(opener: HTMLButtonElement, o: { noun: string; name: string; path: string; formats: readonly FileFormat[] }): Promise<void> {
  // one file at a time (the button keeps the focus meanwhile: it is not disabled)
  if (opener.getAttribute('aria-busy') === 'true') return;
  const chosen = await menuDialog(`Download ${o.noun} ${o.name}`, o.formats.map((f) => [f, f.label] as const), { label: 'File types', cancel: true });
  opener.focus();
  if (chosen === null) return;
  const fallback = `${o.name}.${chosen.extension}`;
  opener.setAttribute('aria-busy', 'true');
  showMessage(`Preparing ${fallback}…`, 'note');
  try {
    const { blob, fileName } = await getFile(o.path, chosen.accept);
    const name = fileName ?? fallback;
    saveFile(blob, name);
    showMessage(`${name} downloaded.`, 'note');
  } catch (e) {
    showError(e);
  } finally {
    opener.removeAttribute('aria-busy');
  }
}

/** Hands `blob` to the browser to save as `name` (a link with `download`, clicked). */
function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // the browser reads the URL after the click's task: freed once it surely has
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
