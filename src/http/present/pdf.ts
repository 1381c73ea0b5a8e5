import { PDFDocument, PageSizes, StandardFonts, rgb, type PDFFont } from 'pdf-lib';

/** Paper sizes of `formatDetails.paperSize` (the reference's list), in points, portrait. */
/** (ARCH D is 24 × 36 inches.) */
const PAPER: Record<string, [number, number]> = {
  LETTER: PageSizes.Letter, LEGAL: PageSizes.Legal, WIDE: PageSizes.Tabloid, ARCHD: [1728, 2592],
  A4: PageSizes.A4, A3: PageSizes.A3, A2: PageSizes.A2, A1: PageSizes.A1, A0: PageSizes.A0,
};

const MARGIN = 36;
const SIZE = 8;
const LINE = 12;

/** Text the standard font can write: characters outside its set become '?'. */
function writable(allowed: Set<number>, text: string): string {
  let out = '';
  for (const ch of text.replace(/[\r\n\t]+/g, ' ')) out += allowed.has(ch.codePointAt(0)!) ? ch : '?';
  return out;
}

/** The text cut to fit `width` points, with an ellipsis when cut. */
function fit(font: PDFFont, text: string, width: number): string {
  if (font.widthOfTextAtSize(text, SIZE) <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (font.widthOfTextAtSize(text.slice(0, mid) + '…', SIZE) <= width) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo) + '…';
}

/**
 * A table as a PDF document (Send Report via Email with format PDF): landscape pages of the
 * paper size, the title on each page, the column titles in bold, then a line per row with what
 * each cell shows, cut to its column's width. Column widths follow the longest text of each
 * column (within bounds). Written with the standard Helvetica fonts, so characters outside
 * their Latin-1 set print as '?'.
 */
export async function tablePdf(title: string, titles: readonly string[], lines: ReadonlyArray<readonly string[]>, paperSize = 'LETTER'): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  doc.setProducer('sheetd');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const allowed = new Set(font.getCharacterSet());
  const [h, w] = PAPER[paperSize] ?? PageSizes.Letter;
  const usable = w - 2 * MARGIN;
  const head = titles.map((t) => writable(allowed, t));
  const body = lines.map((l) => l.map((t) => writable(allowed, t)));
  // each column's share of the width: its longest text, between 4 and 40 characters' worth
  const want = head.map((t, i) => Math.min(40, Math.max(4, t.length, ...body.slice(0, 500).map((l) => (l[i] ?? '').length))));
  const total = want.reduce((a, b) => a + b, 0) || 1;
  const widths = want.map((n) => (usable * n) / total);
  const xs = widths.map((_, i) => MARGIN + widths.slice(0, i).reduce((a, b) => a + b, 0));
  const heading = writable(allowed, title);
  let page = doc.addPage([w, h]);
  let y = 0;
  const newPage = (first: boolean) => {
    if (!first) page = doc.addPage([w, h]);
    page.drawText(fit(bold, heading, usable), { x: MARGIN, y: h - MARGIN, size: 12, font: bold });
    y = h - MARGIN - 2 * LINE;
    head.forEach((t, i) => page.drawText(fit(bold, t, widths[i]! - 4), { x: xs[i]!, y, size: SIZE, font: bold }));
    page.drawLine({ start: { x: MARGIN, y: y - 3 }, end: { x: w - MARGIN, y: y - 3 }, thickness: 0.5, color: rgb(0.5, 0.5, 0.5) });
    y -= LINE + 2;
  };
  newPage(true);
  for (const l of body) {
    if (y < MARGIN) newPage(false);
    l.forEach((t, i) => {
      if (t !== '' && i < widths.length) page.drawText(fit(font, t, widths[i]! - 4), { x: xs[i]!, y, size: SIZE, font });
    });
    y -= LINE;
  }
  return Buffer.from(await doc.save());
}
