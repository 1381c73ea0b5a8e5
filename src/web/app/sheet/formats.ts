/**
 * Format descriptors (spec 2.1: "fontFamily,fontSize,bold,italic,underline,strikethrough,
 * horizontalAlign,verticalAlign,textColor,backgroundColor,...", each an index into the server's
 * format tables) as CSS. Later descriptors win per position: column, row, cell, then the
 * conditional format. Number and date formats are already in the API's displayValue.
 */
const FONT_SIZES = ['8', '9', '10', '12', '14', '16', '18', '20', '24', '28', '32', '36', '40', '48', '56', '64', '72'];
const H_ALIGN = ['', 'left', 'center', 'right'];

export function formatStyle(palette: string[], descriptors: Array<string | undefined>): Record<string, string> {
  const merged: string[] = [];
  for (const d of descriptors) {
    if (!d) continue;
    d.split(',').forEach((v, i) => {
      if (v !== '') merged[i] = v;
    });
  }
  const style: Record<string, string> = {};
  if (merged.length === 0) return style;
  const at = (i: number) => (merged[i] !== undefined ? Number(merged[i]) : NaN);
  const size = FONT_SIZES[at(1)];
  if (size && at(1) !== 3) style['font-size'] = `${Math.round(Number(size) * 1.33)}px`;
  if (at(2) === 1) style['font-weight'] = '700';
  if (at(3) === 1) style['font-style'] = 'italic';
  const deco = [at(4) === 1 ? 'underline' : '', at(5) === 1 ? 'line-through' : ''].filter(Boolean).join(' ');
  if (deco) style['text-decoration'] = deco;
  const align = H_ALIGN[at(6)];
  if (align) style['text-align'] = align;
  const color = palette[at(8)];
  if (color && color !== 'none') style.color = color;
  const bg = palette[at(9)];
  if (bg && bg !== 'none') style['background-color'] = bg;
  return style;
}
