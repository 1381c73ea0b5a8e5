import { ApiError, messageOf, sendFile } from '../api.ts';
import { dialog, h } from '../dom.ts';
import { firstRow, type ImportFormat } from './importPreview.ts';

/**
 * Import… on Home: a CSV or Excel (.xlsx) file made into a sheet by the Import Sheet API
 * (`POST /sheets/import`, `/folders/{id}/sheets/import`, `/workspaces/{id}/sheets/import`; the
 * file is the request's body, its type says which kind, the rest is the query: sheetName,
 * headerRowIndex, primaryColumnIndex). The file is chosen with a file field or dropped on the
 * dialog; its name (without the extension) is the sheet's name until one is typed; its first
 * row, read here, names the columns to choose the primary one from. The upload's progress is
 * shown (and announced), then the server's work; a refusal is said in words in the dialog,
 * which stays open to choose another file. Resolves with the new sheet's id, or null when
 * cancelled (an upload under way is stopped: no sheet is made).
 */

const TYPES: Record<ImportFormat, string> = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The largest file the server imports (services/sheets/imports.ts IMPORT_MAX_BYTES): a larger one is not sent at all. */
const MAX_BYTES = 30 * 1024 * 1024;

/** The kind of a file by its extension (or the type the browser gives it); undefined: neither. */
export function formatOf(file: File): ImportFormat | undefined {
  const ext = /\.([^.]+)$/.exec(file.name)?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'xlsx') return ext;
  return (Object.keys(TYPES) as ImportFormat[]).find((k) => TYPES[k] === file.type);
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** A refusal of Import Sheet in words about the file (the catalogue's own words for the rest). */
export function importRefusal(e: unknown): string {
  if (!(e instanceof ApiError)) return messageOf(e);
  const detail = /The following error occurred: (.*)$/.exec(e.message)?.[1]?.replace(/\.$/, '');
  switch (e.errorCode) {
    case 1061:
      return /cells/.test(e.message)
        ? 'This file has more cells than a sheet can hold (500,000: rows times columns). Split it into smaller files and import each.'
        : 'This file has more columns than a sheet can hold (400). Remove some columns and import it again.';
    case 1074:
    case 1128:
      return 'This file is too large to import: files of up to 30 MB can be imported.';
    case 1095:
      return 'This file cannot be read as an Excel workbook: it is damaged, or not an .xlsx file. Save it again as .xlsx (or as CSV) and import that.';
    case 1024:
      return 'This file is empty.';
    case 1124:
      return 'Only CSV (.csv) and Excel (.xlsx) files can be imported.';
    case 1008:
      if (detail === 'the file holds no data') return 'This file holds no data: there is nothing to make a sheet from.';
      if (detail?.startsWith('the CSV file: ')) return `This CSV file cannot be read: ${detail.slice('the CSV file: '.length)}.`;
      return e.message;
    case 1018:
      if (/primaryColumnIndex/.test(e.message)) return 'The file has no such column to be the primary column. Choose another.';
      if (/headerRowIndex/.test(e.message)) return 'The file has no first row to take the column titles from.';
      return e.message;
    default:
      return e.message;
  }
}

export async function openImportDialog(o: { path: string; title: string }): Promise<number | null> {
  return dialog<number>(o.title, (body, done) => {
    const dlg = body.closest('dialog') as HTMLDialogElement;
    dlg.classList.add('import-dialog');
    const form = h('form', { class: 'modal-form import-form', novalidate: true });
    const file = h('input', { id: 'imp-file', name: 'file', type: 'file', accept: `.csv,.xlsx,${TYPES.csv},${TYPES.xlsx}`, 'aria-describedby': 'imp-file-note' });
    const fileNote = h('p', { class: 'note', id: 'imp-file-note' }, 'A CSV or Excel (.xlsx) file of up to 30 MB: choose it here, or drop it on this dialog. Of a workbook, its first worksheet is imported.');
    const name = h('input', { id: 'imp-name', name: 'sheetName', type: 'text', maxlength: 500, autocomplete: 'off' });
    const header = h('input', { id: 'imp-header', name: 'header', type: 'checkbox', checked: true });
    const primary = h('select', { id: 'imp-primary', name: 'primary', 'aria-describedby': 'imp-primary-note' });
    const primaryNote = h('p', { class: 'note', id: 'imp-primary-note' }, 'The primary column names the rows. The other columns’ types (text and numbers, dates, check boxes) are taken from their values.');
    const progress = h('progress', { id: 'imp-progress', max: 100, 'aria-label': 'Upload progress' });
    const progressBox = h('div', { class: 'import-progress', hidden: true }, progress);
    const status = h('p', { class: 'note import-status', role: 'status' });
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    const fields = h('fieldset', { class: 'import-fields' },
      h('legend', { class: 'visually-hidden' }, 'The file and the sheet'),
      h('label', { for: 'imp-file' }, 'File to import'), file, fileNote,
      h('label', { for: 'imp-name' }, 'Sheet name'), name,
      h('div', { class: 'check-line' }, header, h('label', { for: 'imp-header' }, 'The first row holds the column titles')),
      h('label', { for: 'imp-primary' }, 'Primary column'), primary, primaryNote);
    const save = h('button', { type: 'submit' }, 'Import');
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    form.append(fields, progressBox, status, error, h('div', { class: 'modal-actions' }, save, cancel));
    body.append(form);

    /** The file chosen (or dropped), its first row once read, and whether the name was typed. */
    let chosen: File | null = null;
    let row: string[] | null = null;
    let nameTyped = false;
    /** An upload under way (Cancel stops it), or the server at work on a whole upload (it goes on). */
    let upload: AbortController | null = null;
    let serverAtWork = false;

    const fail = (text: string, focus?: HTMLElement) => {
      error.textContent = text;
      error.hidden = false;
      focus?.focus();
    };
    const clearError = () => {
      error.hidden = true;
      error.textContent = '';
    };

    /** The primary column's choices: the first row's titles (or Column1, Column2, ... with a first value). */
    const fillPrimary = () => {
      const was = primary.selectedIndex;
      const titled = header.checked;
      const labels = row === null || row.length === 0
        ? ['The first column']
        : row.map((v, i) => {
          const t = v.trim();
          if (titled) return t === '' ? `Column${i + 1}` : t;
          return t === '' ? `Column${i + 1}` : `Column${i + 1} (${t.length > 30 ? `${t.slice(0, 30)}…` : t})`;
        });
      primary.replaceChildren(...labels.map((l, i) => h('option', { value: String(i), selected: i === (was >= 0 && was < labels.length ? was : 0) }, l)));
    };
    fillPrimary();
    header.addEventListener('change', fillPrimary);
    name.addEventListener('input', () => { nameTyped = name.value !== ''; });

    const take = (f: File | null) => {
      clearError();
      chosen = f;
      row = null;
      fillPrimary();
      if (!f) return;
      const format = formatOf(f);
      if (format === undefined) {
        fail(`${f.name} is not a CSV (.csv) or Excel (.xlsx) file: only those can be imported.`);
        return;
      }
      if (f.size > MAX_BYTES) {
        fail(`${f.name} is ${sizeText(f.size)}: files of up to 30 MB can be imported.`);
        return;
      }
      if (!nameTyped) name.value = f.name.replace(/\.[^.]+$/, '').slice(0, 500);
      void firstRow(f, format).then((r) => {
        if (chosen !== f) return;
        row = r;
        fillPrimary();
      });
    };
    file.addEventListener('change', () => take(file.files?.[0] ?? null));

    // a file dropped anywhere on the dialog
    dlg.addEventListener('dragover', (e) => {
      if (upload || serverAtWork || !e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
      dlg.classList.add('dragging');
    });
    dlg.addEventListener('dragleave', (e) => {
      if (e.relatedTarget === null || !dlg.contains(e.relatedTarget as Node)) dlg.classList.remove('dragging');
    });
    dlg.addEventListener('drop', (e) => {
      dlg.classList.remove('dragging');
      const files = e.dataTransfer?.files;
      if (!files || files.length === 0) return;
      e.preventDefault();
      if (upload || serverAtWork) return;
      // the field shows the dropped file (and a form reset clears it)
      const one = new DataTransfer();
      one.items.add(files[0]!);
      file.files = one.files;
      take(files[0]!);
      file.focus();
    });

    // Cancel and Escape stop an upload; once the whole file is sent, the server makes the sheet
    // and the dialog waits for it (the import is not undone by closing a dialog)
    dlg.addEventListener('cancel', (e) => {
      if (serverAtWork) {
        e.preventDefault();
        e.stopImmediatePropagation();
        return;
      }
      upload?.abort();
    }, { capture: true });
    cancel.addEventListener('click', () => dlg.dispatchEvent(new Event('cancel')));

    const busy = (on: boolean) => {
      fields.disabled = on;
      save.disabled = on;
      progressBox.hidden = !on;
      if (on) dlg.setAttribute('aria-busy', 'true');
      else dlg.removeAttribute('aria-busy');
    };

    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (upload || serverAtWork) return;
      clearError();
      const f = chosen;
      if (!f) return fail('Choose a CSV or Excel (.xlsx) file to import.', file);
      const format = formatOf(f);
      if (format === undefined) return fail(`${f.name} is not a CSV (.csv) or Excel (.xlsx) file: only those can be imported.`, file);
      if (f.size > MAX_BYTES) return fail(`${f.name} is ${sizeText(f.size)}: files of up to 30 MB can be imported.`, file);
      const sheetName = name.value.trim();
      if (!sheetName) return fail('Give the sheet a name.', name);
      const query = { sheetName, headerRowIndex: header.checked ? 0 : undefined, primaryColumnIndex: primary.selectedIndex > 0 ? primary.selectedIndex : undefined };
      const controller = new AbortController();
      upload = controller;
      busy(true);
      progress.value = 0;
      status.textContent = `Uploading ${f.name}…`;
      // the status line is read out: at the start, each quarter, and when the server takes over
      let said = 0;
      void sendFile<{ result: { id: number } }>(o.path, f, TYPES[format], {
        query,
        signal: controller.signal,
        onProgress: (sent, total) => {
          const pct = total > 0 ? Math.floor((sent / total) * 100) : 0;
          progress.value = pct;
          if (pct >= said + 25 && pct < 100) {
            said = pct - (pct % 25);
            status.textContent = `Uploading ${f.name}: ${said}%`;
          }
        },
        onSent: () => {
          upload = null;
          serverAtWork = true;
          cancel.disabled = true;
          // no more bytes to count: the bar shows work without an end
          progress.removeAttribute('value');
          status.textContent = `Making the sheet from ${f.name}…`;
        },
      }).then((res) => {
        status.textContent = `${sheetName} is made. Opening it…`;
        done(res.result.id);
      }, (e: unknown) => {
        upload = null;
        serverAtWork = false;
        cancel.disabled = false;
        busy(false);
        status.textContent = '';
        // stopped by Cancel: the dialog is closing
        if (e instanceof DOMException && e.name === 'AbortError') return;
        fail(importRefusal(e), file);
      });
    });
  });
}
