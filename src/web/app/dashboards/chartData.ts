/**
 * What a CHART widget shows, from its source's rows: pure (no DOM, no server), so the signed-in
 * dashboard page (from Get Sheet or Get Report in the browser) and the published page (from the
 * owner's sheet on the server) compute the same figures.
 *
 * The widget's contents are the reference's ChartWidgetContent:
 * - the cells: the blocks of `selectionRanges` (sourceColumnId1..2, sourceRowId1..2, in the
 *   sheet's order; a range without rows takes every row), else the `includedColumnIds` over
 *   every row, else every visible column;
 * - `series[0].seriesSelectionOrder` COLUMNS (the default): the first column of the block names
 *   the categories and each further column is a series; ROWS: each row is a series named by
 *   its first cell, the other columns' titles are the categories;
 * - `series[i]`: `title` (else the column's title or the row's first cell), `seriesType` (AREA,
 *   BAR, COLUMN, LINE, PIE, SCATTER; COLUMN by default), `color`;
 * - `legend.location` (NONE hides it), `axes[].title` by location (BOTTOM/TOP: categories,
 *   LEFT/RIGHT: values).
 * A value is a number, or text that reads as one ("1,200", "45%", "$3.50"); anything else is a
 * gap (null). Blank rows are left out, as a spreadsheet's chart leaves them: in COLUMNS order a
 * row whose category cell is blank (with one column: whose value is blank), in ROWS order a row
 * blank in every cell of the block. A named category or series without figures stays, with gaps.
 */

export interface TableColumn { id: number; title: string; type?: string; hidden?: boolean }
export interface TableCell { columnId: number; value?: unknown; displayValue?: string }
export interface TableRow { id: number; cells: TableCell[] }
export interface SourceTable { columns: TableColumn[]; rows: TableRow[] }

export type SeriesType = 'AREA' | 'BAR' | 'COLUMN' | 'LINE' | 'PIE' | 'SCATTER';
export type Location = 'BOTTOM' | 'LEFT' | 'NONE' | 'RIGHT' | 'TOP';

export interface ChartSeries { label: string; type: SeriesType; color?: string; values: Array<number | null> }

export interface ChartData {
  /** The chart's type: the first series' type. */
  type: SeriesType;
  /** The category names (x axis; slices of a pie). */
  categoryTitle: string;
  labels: string[];
  series: ChartSeries[];
  legend: Location;
  axisTitles: { x?: string; y?: string };
}

type Obj = Record<string, unknown>;
const TYPES: readonly SeriesType[] = ['AREA', 'BAR', 'COLUMN', 'LINE', 'PIE', 'SCATTER'];
const LOCATIONS: readonly Location[] = ['BOTTOM', 'LEFT', 'NONE', 'RIGHT', 'TOP'];

/** What a cell shows, as text. */
export function cellText(c: TableCell | undefined): string {
  if (!c) return '';
  if (typeof c.displayValue === 'string') return c.displayValue;
  return c.value === undefined || c.value === null ? '' : String(c.value);
}

/** Whether a cell shows nothing (no value, or only spaces). */
export function isBlank(c: TableCell | undefined): boolean {
  return cellText(c).trim() === '';
}

/** A cell's number: its value when numeric, else its text read as a number; null otherwise. */
export function cellNumber(c: TableCell | undefined): number | null {
  if (!c) return null;
  if (typeof c.value === 'number' && Number.isFinite(c.value)) return c.value;
  if (typeof c.value === 'boolean') return c.value ? 1 : 0;
  const t = cellText(c).trim().replace(/[,\s]/g, '').replace(/^[$€£¥]/, '').replace(/%$/, '');
  if (t === '' || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

function ids(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The columns and rows a chart reads, in the source's order. */
export function chartBlock(contents: Obj, table: SourceTable): { columns: TableColumn[]; rows: TableRow[] } {
  const colIndex = new Map(table.columns.map((c, i) => [c.id, i]));
  const rowIndex = new Map(table.rows.map((r, i) => [r.id, i]));
  const cols = new Set<number>();
  const rows = new Set<number>();
  const ranges = Array.isArray(contents.selectionRanges) ? (contents.selectionRanges as Obj[]) : [];
  for (const r of ranges) {
    const c1 = colIndex.get(ids(r.sourceColumnId1) ?? NaN);
    const c2 = colIndex.get(ids(r.sourceColumnId2) ?? ids(r.sourceColumnId1) ?? NaN);
    const r1 = rowIndex.get(ids(r.sourceRowId1) ?? NaN);
    const r2 = rowIndex.get(ids(r.sourceRowId2) ?? ids(r.sourceRowId1) ?? NaN);
    const [ca, cb] = c1 === undefined ? [0, table.columns.length - 1] : [Math.min(c1, c2 ?? c1), Math.max(c1, c2 ?? c1)];
    const [ra, rb] = r1 === undefined ? [0, table.rows.length - 1] : [Math.min(r1, r2 ?? r1), Math.max(r1, r2 ?? r1)];
    for (let i = ca; i <= cb; i++) cols.add(i);
    for (let i = ra; i <= rb; i++) rows.add(i);
  }
  if (ranges.length === 0 || cols.size === 0) {
    const included = Array.isArray(contents.includedColumnIds) ? (contents.includedColumnIds as unknown[]).map(ids).filter((x): x is number => x !== undefined) : [];
    const wanted = included.map((id) => colIndex.get(id)).filter((i): i is number => i !== undefined);
    if (wanted.length > 0) wanted.forEach((i) => cols.add(i));
    else table.columns.forEach((c, i) => !c.hidden && cols.add(i));
  }
  if (rows.size === 0) table.rows.forEach((_, i) => rows.add(i));
  return {
    columns: [...cols].sort((a, b) => a - b).map((i) => table.columns[i]!),
    rows: [...rows].sort((a, b) => a - b).map((i) => table.rows[i]!),
  };
}

export function chartData(contents: Obj, table: SourceTable): ChartData {
  const seriesDefs = Array.isArray(contents.series) ? (contents.series as Obj[]) : [];
  const def = (i: number): Obj => seriesDefs[i] ?? seriesDefs[0] ?? {};
  const typeOf = (i: number): SeriesType => {
    const t = def(i).seriesType;
    return TYPES.includes(t as SeriesType) ? (t as SeriesType) : 'COLUMN';
  };
  const titleOf = (i: number, dflt: string) => (typeof seriesDefs[i]?.title === 'string' && seriesDefs[i]!.title !== '' ? String(seriesDefs[i]!.title) : dflt);
  const colorOf = (i: number) => (typeof seriesDefs[i]?.color === 'string' ? String(seriesDefs[i]!.color) : undefined);
  const byRow = (r: TableRow) => new Map(r.cells.map((c) => [c.columnId, c]));

  const { columns, rows } = chartBlock(contents, table);
  const order = def(0).seriesSelectionOrder === 'ROWS' ? 'ROWS' : 'COLUMNS';
  let categoryTitle = '';
  let labels: string[] = [];
  const series: ChartSeries[] = [];
  if (order === 'COLUMNS') {
    const [first, ...rest] = columns;
    if (first && rest.length > 0) {
      categoryTitle = first.title;
      // a row without a category (a blank row between the figures, the empty rows at the bottom) is no category
      const cells = rows.map(byRow).filter((m) => !isBlank(m.get(first.id)));
      labels = cells.map((m) => cellText(m.get(first.id)));
      rest.forEach((col, i) => series.push({ label: titleOf(i, col.title), type: typeOf(i), ...(colorOf(i) ? { color: colorOf(i)! } : {}), values: cells.map((m) => cellNumber(m.get(col.id))) }));
    } else if (first) {
      // one column: its values, one category per row that has one, labelled by the row's place in the block
      categoryTitle = 'Row';
      const shown = rows.map((r, i) => ({ i, c: byRow(r).get(first.id) })).filter((x) => !isBlank(x.c));
      labels = shown.map((x) => String(x.i + 1));
      series.push({ label: titleOf(0, first.title), type: typeOf(0), ...(colorOf(0) ? { color: colorOf(0)! } : {}), values: shown.map((x) => cellNumber(x.c)) });
    }
  } else {
    const [first, ...rest] = columns;
    if (first) {
      categoryTitle = first.title;
      labels = rest.map((c) => c.title);
      rows.forEach((r, i) => {
        const m = byRow(r);
        // a blank row is no series (a row with figures but no name is still one, named by its place)
        if (columns.every((c) => isBlank(m.get(c.id)))) return;
        // the widget's series[k] describe the k-th series drawn
        const k = series.length;
        const name = cellText(m.get(first.id)).trim();
        series.push({ label: titleOf(k, name || `Row ${i + 1}`), type: typeOf(k), ...(colorOf(k) ? { color: colorOf(k)! } : {}), values: rest.map((c) => cellNumber(m.get(c.id))) });
      });
    }
  }
  const legendLoc = (contents.legend as Obj | undefined)?.location;
  const axes = Array.isArray(contents.axes) ? (contents.axes as Obj[]) : [];
  const axisTitle = (locs: Location[]) => {
    const a = axes.find((x) => locs.includes(x.location as Location) && typeof x.title === 'string' && x.title !== '');
    return a ? String(a.title) : undefined;
  };
  const x = axisTitle(['BOTTOM', 'TOP']);
  const y = axisTitle(['LEFT', 'RIGHT']);
  return {
    type: series[0]?.type ?? typeOf(0),
    categoryTitle,
    labels,
    series,
    legend: LOCATIONS.includes(legendLoc as Location) ? (legendLoc as Location) : 'BOTTOM',
    axisTitles: { ...(x ? { x } : {}), ...(y ? { y } : {}) },
  };
}

const KINDS: Record<SeriesType, string> = { AREA: 'Area chart', BAR: 'Bar chart', COLUMN: 'Column chart', LINE: 'Line chart', PIE: 'Pie chart', SCATTER: 'Scatter chart' };

/** A one-line description of the chart: the accessible name of its drawing. */
export function chartSummary(title: string, d: ChartData): string {
  const series = d.series.map((s) => s.label).join(', ');
  return `${KINDS[d.type]}${title ? `: ${title}` : ''}. ${d.labels.length} ${d.categoryTitle || 'categories'}${series ? `; series ${series}` : ''}. The figures are in the table that follows.`;
}

/** Get Report's JSON as a source table (its columns by virtual id). */
export function reportTable(report: { columns?: Array<{ virtualId: number; title: string; type?: string; hidden?: boolean }>; rows?: Array<{ id: number; cells?: Array<{ virtualColumnId?: number; value?: unknown; displayValue?: string }> }> }): SourceTable {
  return {
    columns: (report.columns ?? []).map((c) => ({ id: c.virtualId, title: c.title, type: c.type, hidden: c.hidden })),
    rows: (report.rows ?? []).map((r) => ({ id: r.id, cells: (r.cells ?? []).filter((c) => c.virtualColumnId !== undefined).map((c) => ({ columnId: c.virtualColumnId!, value: c.value, displayValue: c.displayValue })) })),
  };
}
