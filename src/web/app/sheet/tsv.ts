/**
 * Tab-separated text as spreadsheet programs put it on the clipboard: cells split by tabs, rows
 * by line breaks; a cell holding a tab, a line break or a double quote is quoted ("..." with ""
 * for a quote), so a quoted cell may span lines.
 */
export function parseTsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  let atCellStart = true;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (atCellStart && c === '"') {
      // a quoted cell: up to the closing quote not followed by another
      let j = i + 1;
      let value = '';
      let closed = false;
      while (j < n) {
        const d = text[j]!;
        if (d === '"') {
          if (text[j + 1] === '"') {
            value += '"';
            j += 2;
            continue;
          }
          closed = true;
          j++;
          break;
        }
        value += d;
        j++;
      }
      // only a real quoted cell when the closing quote ends the cell
      if (closed && (j === n || text[j] === '\t' || text[j] === '\n' || text[j] === '\r')) {
        cell = value;
        i = j;
        atCellStart = false;
        continue;
      }
    }
    atCellStart = false;
    if (c === '\t') {
      row.push(cell);
      cell = '';
      atCellStart = true;
      i++;
    } else if (c === '\n' || c === '\r') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      atCellStart = true;
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      cell += c;
      i++;
    }
  }
  if (!atCellStart || cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

export function toTsv(rows: string[][]): string {
  return rows.map((r) => r.map((c) => (/[\t\n\r"]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join('\t')).join('\n');
}
