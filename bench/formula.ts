/**
 * Formula engine figures: a 25,000-row sheet where B = [A]@row * 2 (a column formula) and C
 * is a running total over B, written two ways:
 *
 *   cell-to-cell   C1 = B1, Cn = C(n-1) + Bn (one cell formula per row)
 *   SUM range      C = SUM([B]$1:[B]@row) (a column formula: every row sums from the top)
 *
 * For each form it prints the time to load and compute everything and to recompute after one
 * edit in column A (at the top: every C cell changes; at the bottom: three cells), each beside
 * its goal, on a cold JIT and warm (after two unmeasured rounds), and a plain-array baseline
 * doing the same arithmetic. Never asserts.
 *
 *   node --import tsx bench/formula.ts     (or: npm run bench -- formula)
 */
import { pathToFileURL } from 'node:url';
import { FormulaEngine, type LoadCell } from '../src/engine/formula/index.ts';

const ROWS = 25_000;
const A = 1;
const B = 2;
const C = 3;

type Form = 'cell-to-cell' | 'SUM range';

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function sheet(rows: number, form: Form): { engine: FormulaEngine; cells: LoadCell[]; columnFormulas: { columnId: number; formula: string }[] } {
  const engine = new FormulaEngine(
    [
      { id: A, title: 'A', type: 'TEXT_NUMBER' },
      { id: B, title: 'B', type: 'TEXT_NUMBER' },
      { id: C, title: 'C', type: 'TEXT_NUMBER' },
    ],
    Array.from({ length: rows }, (_, i) => ({ id: i + 1 })),
  );
  const cells: LoadCell[] = [];
  for (let i = 0; i < rows; i++) {
    cells.push({ rowId: i + 1, columnId: A, value: i % 100 });
    if (form === 'cell-to-cell') cells.push({ rowId: i + 1, columnId: C, formula: i === 0 ? '=B1' : `=C${i} + B${i + 1}` });
  }
  const columnFormulas = [{ columnId: B, formula: '=[A]@row * 2' }];
  if (form === 'SUM range') columnFormulas.push({ columnId: C, formula: '=SUM([B]$1:[B]@row)' });
  return { engine, cells, columnFormulas };
}

interface Round {
  load: number;
  editTop: number;
  /** Median of five more edits at the top (each recomputes every C cell again). */
  editTopMedian: number;
  topCells: number;
  editBottom: number;
  bottomCells: number;
  check: unknown;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1] as number;
}

/** One measured round: load + compute all, then edits at the top (every C cell changes) and one at the bottom. */
function round(rows: number, form: Form): Round {
  const { engine, cells, columnFormulas } = sheet(rows, form);
  let t = process.hrtime.bigint();
  engine.load(cells, columnFormulas);
  const load = ms(t);
  t = process.hrtime.bigint();
  const top = engine.setCellValue(1, A, 1000);
  const editTop = ms(t);
  const more: number[] = [];
  for (let i = 1; i <= 5; i++) {
    t = process.hrtime.bigint();
    engine.setCellValue(1, A, 1000 + i);
    more.push(ms(t));
  }
  t = process.hrtime.bigint();
  const bottom = engine.setCellValue(rows, A, 7);
  const editBottom = ms(t);
  return {
    load, editTop, editTopMedian: median(more), topCells: top.length, editBottom, bottomCells: bottom.length, check: engine.value(rows, C),
  };
}

/** The same arithmetic on plain arrays: the floor any engine sits above. */
function baseline(rows: number): number {
  const t = process.hrtime.bigint();
  const a = Array.from({ length: rows }, (_, i) => i % 100);
  const b = new Array<number>(rows);
  const c = new Array<number>(rows);
  for (let i = 0; i < rows; i++) {
    b[i] = (a[i] as number) * 2;
    c[i] = (i === 0 ? 0 : (c[i - 1] as number)) + (b[i] as number);
  }
  return ms(t);
}

function line(label: string, value: number, goal: string): void {
  console.log(`  ${label.padEnd(50)} ${value.toFixed(1).padStart(9)} ms   ${goal}`);
}

function report(form: Form): void {
  const formula = form === 'cell-to-cell' ? 'C1 = B1, Cn = C(n-1) + Bn (cell formulas)' : 'C = SUM([B]$1:[B]@row) (column formula)';
  console.log(`formula engine, ${form}: ${ROWS} rows, B = [A]@row * 2 (column formula), ${formula}`);
  const cold = round(ROWS, form);
  line('first run: load + compute all (cold JIT)', cold.load, '(goal < 500 ms)');
  line(`first run: edit A1 -> ${cold.topCells} cells changed`, cold.editTop, '(goal < 50 ms)');
  // two unmeasured rounds so that "warm" means what a running server sees
  round(ROWS, form);
  round(ROWS, form);
  const warm = round(ROWS, form);
  line('warm: load + compute all', warm.load, '(goal < 500 ms)');
  line(`warm: edit A1 -> ${warm.topCells} cells changed`, warm.editTop, '(goal < 50 ms)');
  line('warm: edit A1 again, median of 5', warm.editTopMedian, '(goal < 50 ms)');
  line(`warm: edit A${ROWS} -> ${warm.bottomCells} cells changed`, warm.editBottom, '(goal < 50 ms)');
  console.log(`  check: C${ROWS} = ${String(warm.check)}`);
}

export async function benchFormula(): Promise<void> {
  report('cell-to-cell');
  report('SUM range');
  line('baseline: same arithmetic on plain arrays', baseline(ROWS), '');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchFormula();
}
