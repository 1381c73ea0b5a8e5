import type { RowsMail } from '../services/outbound/emails.ts';
import { rowCells, type RowPresentOptions } from './rowCells.ts';
import { shownText } from './csv.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The body of Send Rows via Email, as HTML and as plain text: the sender's message, then the
 * rows as a grid (HORIZONTAL) or a card per row (VERTICAL) with what each cell shows, each
 * row followed by its attachments and discussions when they were asked for.
 */
export function rowsMailBody(m: RowsMail, o: Omit<RowPresentOptions, 'columns'>): { text: string; html: string } {
  const each: RowPresentOptions = { ...o, columns: m.columns };
  const shown = m.rows.map((r) => rowCells(m.model, r, each).map((c) => shownText(c) ?? ''));
  const intro = `${m.sender.name} (${m.sender.email}) sent you ${m.rows.length === 1 ? 'a row' : `${m.rows.length} rows`} from the sheet "${m.sheet.name}".`;
  const text: string[] = [intro];
  const html: string[] = [`<!doctype html><html><body style="font-family:sans-serif;font-size:14px">`, `<p>${esc(intro)}</p>`];
  if (m.message) {
    text.push(m.message);
    html.push(`<p style="white-space:pre-wrap">${esc(m.message)}</p>`);
  }
  const extras = (rowId: number): { text: string[]; html: string } => {
    const t: string[] = [];
    const h: string[] = [];
    const files = m.attachments.get(rowId) ?? [];
    if (files.length > 0) {
      t.push('Attachments:', ...files.map((f) => `  - ${f.name}${f.url ? ` <${f.url}>` : f.attached ? ' (attached)' : ' (too large to attach)'}`));
      h.push('<p><b>Attachments</b></p><ul>', ...files.map((f) => `<li>${f.url ? `<a href="${esc(f.url)}">${esc(f.name)}</a>` : esc(f.name)}${f.url ? '' : f.attached ? ' (attached)' : ' (too large to attach)'}</li>`), '</ul>');
    }
    for (const d of m.discussions.get(rowId) ?? []) {
      t.push(`Discussion: ${d.title}`, ...d.comments.map((c) => `  ${c.author} (${when(c.at)}): ${c.text}`));
      h.push(`<p><b>Discussion:</b> ${esc(d.title)}</p><ul>`, ...d.comments.map((c) => `<li><b>${esc(c.author)}</b> <small>${when(c.at)}</small><br>${esc(c.text)}</li>`), '</ul>');
    }
    return { text: t, html: h.join('') };
  };
  if (m.layout === 'HORIZONTAL') {
    if (m.columns.length > 0) {
      text.push([m.columns.map((c) => c.title).join(' | '), ...shown.map((cells) => cells.join(' | '))].join('\n'));
      const head = m.columns.map((c) => `<th style="text-align:left;border-bottom:1px solid #999;padding:4px">${esc(c.title)}</th>`).join('');
      const body = shown.map((cells) => `<tr>${cells.map((v) => `<td style="border-bottom:1px solid #ddd;padding:4px">${esc(v)}</td>`).join('')}</tr>`).join('');
      html.push(`<table style="border-collapse:collapse"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`);
    }
    m.rows.forEach((r, i) => {
      const e = extras(r.id);
      if (e.text.length === 0) return;
      const label = m.columns.length > 0 ? `Row ${i + 1}: ${shown[i]![0] ?? ''}` : `Row ${i + 1}`;
      text.push([label, ...e.text].join('\n'));
      html.push(`<h4>${esc(label)}</h4>${e.html}`);
    });
  } else {
    m.rows.forEach((r, i) => {
      const lines = m.columns.map((c, j) => `${c.title}: ${shown[i]![j]}`);
      const e = extras(r.id);
      text.push([...lines, ...e.text].join('\n'));
      const dl = m.columns.map((c, j) => `<tr><th style="text-align:left;padding:2px 8px 2px 0">${esc(c.title)}</th><td>${esc(shown[i]![j]!)}</td></tr>`).join('');
      html.push(`<div style="border:1px solid #ccc;border-radius:4px;padding:8px;margin:8px 0"><table>${dl}</table>${e.html}</div>`);
    });
  }
  html.push('</body></html>');
  return { text: text.join('\n\n') + '\n', html: html.join('\n') };
}
