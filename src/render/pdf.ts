import fs from 'node:fs';
import type { ColumnDef } from '../engine/columns.ts';
import type { RowState, SheetModel } from '../engine/model.ts';
import { rowCells, type RowPresentOptions } from './rowCells.ts';
import { shownText } from './csv.ts';

/** Paper sizes of the `paperSize` parameter (portrait width and height in points). */
const PAPER: Record<string, [number, number]> = {
  LETTER: [612, 792],
  LEGAL: [612, 1008],
  WIDE: [792, 1224],
  ARCHD: [1728, 2592],
  A4: [595.28, 841.89],
  A3: [841.89, 1190.55],
  A2: [1190.55, 1683.78],
  A1: [1683.78, 2383.94],
  A0: [2383.94, 3370.39],
};

export const PAPER_SIZES = Object.keys(PAPER);

/**
 * A TrueType font that covers more than Latin-1, where the machine has one (Debian's
 * fonts-dejavu-core); otherwise the built-in Helvetica, which draws only Windows-1252 text.
 */
const UNICODE_FONTS = ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', '/usr/share/fonts/TTF/DejaVuSans.ttf'];
let unicodeFont: string | null | undefined;
function fontFile(): string | null {
  if (unicodeFont === undefined) unicodeFont = UNICODE_FONTS.find((f) => fs.existsSync(f)) ?? null;
  return unicodeFont;
}

/** Characters Helvetica cannot draw become '?'. */
function latin(text: string): string {
  return text.replace(/[^\x20-\x7e\u00a0-\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u20ac]/g, '?');
}

const MARGIN = 36;
const ROW_HEIGHT = 16;
const FONT_SIZE = 8;

/** A table to draw: column titles, their relative widths, and each line's cell texts. */
interface PdfTable {
  titles: readonly string[];
  weights: readonly number[];
  lines: Iterable<readonly string[]>;
}

/**
 * A sheet as a PDF document (Get Sheet with `Accept: application/pdf`, the SDKs' "get sheet as
 * PDF", and the PDF of Send Sheet via Email): landscape pages of the paper size asked for
 * (LETTER by default), the sheet's name on top, then a grid of the columns shown (hidden
 * columns left out) with the column titles repeated on every page and each row's cells as
 * they display; a cell too long for its column is cut with an ellipsis. Columns share the
 * page's width by the widths the sheet gives them; child rows are indented under their parent.
 */
export async function sheetPdf(model: SheetModel, name: string, rows: readonly RowState[], o: RowPresentOptions, paperSize = 'LETTER'): Promise<Buffer> {
  const cols: readonly ColumnDef[] = (o.columns ?? model.columns).filter((c) => !c.hidden);
  const depthOf = (row: RowState): number => {
    let d = 0;
    for (let p: number | null | undefined = row.parentId; p !== null && p !== undefined && d < 50; p = model.rows.get(p)?.parentId) d++;
    return d;
  };
  // one options object for every row: rowCells works out the cells' options once per object
  const each: RowPresentOptions = { ...o, columns: [...cols] };
  function* lines(): Iterable<string[]> {
    for (const row of rows) {
      const cells = rowCells(model, row, each);
      const shown = cells.map((c) => shownText(c) ?? '');
      const depth = depthOf(row);
      if (depth > 0 && shown.length > 0) {
        const primary = cols.findIndex((c) => c.primary);
        const at = primary >= 0 ? primary : 0;
        shown[at] = ' '.repeat(depth * 3) + shown[at];
      }
      yield shown;
    }
  }
  return tableDocument(name, { titles: cols.map((c) => c.title), weights: cols.map((c) => Math.max(40, c.width ?? 150)), lines: lines() }, paperSize);
}

/**
 * A table as a PDF document, laid out as a sheet's (the PDF of Send Report via Email): columns
 * share the width by the length of their longest text (between 6 and 40 characters' worth).
 */
export async function tablePdf(name: string, titles: readonly string[], lines: ReadonlyArray<readonly string[]>, paperSize = 'LETTER'): Promise<Buffer> {
  const weights = titles.map((t, i) => Math.min(40, Math.max(6, t.length, ...lines.slice(0, 500).map((l) => (l[i] ?? '').length))));
  return tableDocument(name, { titles, weights, lines }, paperSize);
}

async function tableDocument(name: string, table: PdfTable, paperSize: string): Promise<Buffer> {
  const [w, h] = PAPER[paperSize] ?? PAPER.LETTER!;
  // loaded on first use, as the start of a server (and of a test server) need not wait for it
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: [w, h], layout: 'landscape', margin: MARGIN, info: { Title: name, Producer: 'sheetd' }, autoFirstPage: true });
  const font = fontFile();
  if (font !== null) doc.registerFont('body', font);
  const text = font !== null ? (s: string) => s : latin;
  doc.font(font !== null ? 'body' : 'Helvetica');
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const pageWidth = doc.page.width - 2 * MARGIN;
  const total = table.weights.reduce((a, b) => a + b, 0) || 1;
  const widths = table.weights.map((x) => (x / total) * pageWidth);

  const fit = (s: string, width: number): string => {
    if (doc.widthOfString(s) <= width) return s;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (doc.widthOfString(s.slice(0, mid) + '…') <= width) lo = mid;
      else hi = mid - 1;
    }
    return s.slice(0, lo) + '…';
  };

  const line = (cells: readonly string[], y: number, bold: boolean) => {
    let x = MARGIN;
    if (bold) doc.rect(MARGIN, y, pageWidth, ROW_HEIGHT).fill('#e8ecf1').fillColor('#000');
    for (let i = 0; i < cells.length && i < widths.length; i++) {
      const cw = widths[i]!;
      doc.fontSize(FONT_SIZE).fillColor('#000').text(fit(cells[i]!, cw - 6), x + 3, y + 4, { lineBreak: false, width: cw - 6 });
      x += cw;
    }
    doc.moveTo(MARGIN, y + ROW_HEIGHT).lineTo(MARGIN + pageWidth, y + ROW_HEIGHT).lineWidth(0.3).stroke('#b0b8c4');
  };

  const header = () => {
    doc.fontSize(14).fillColor('#000').text(text(name), MARGIN, MARGIN, { lineBreak: false, width: pageWidth });
    const y = MARGIN + 24;
    line(table.titles.map(text), y, true);
    return y + ROW_HEIGHT;
  };

  let y = header();
  const bottom = doc.page.height - MARGIN;
  for (const cells of table.lines) {
    if (y + ROW_HEIGHT > bottom) {
      doc.addPage();
      y = header();
    }
    line(cells.map(text), y, false);
    y += ROW_HEIGHT;
  }
  doc.end();
  return done;
}
