/**
 * Formula engine figures: a 25,000-row sheet where B = [A]@row * 2 (a column formula) and C
 * is a running total over B (C1 = B1, Cn = C(n-1) + Bn, one cell formula per row). Prints
 * the time to load and compute everything and to recompute after one edit in column A, each
 * beside its goal and a plain-array baseline doing the same arithmetic. Never asserts.
 *
 *   node --import tsx bench/formula.ts     (or: npm run bench -- formula)
 */
import { pathToFileURL } from 'node:url';
import { FormulaEngine, type LoadCell } from '../src/engine/formula/index.ts';

const ROWS = 25_000;
const A = 1;
const B = 2;
const C = 3;

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function sheet(rows: number): { engine: FormulaEngine; cells: LoadCell[] } {
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
    cells.push({ rowId: i + 1, columnId: C, formula: i === 0 ? '=B1' : `=C${i} + B${i + 1}` });
  }
  return { engine, cells };
}

/** One measured round: load + compute all, then an edit at the top (every C cell changes) and at the bottom. */
function round(rows: number): { load: number; editTop: number; topCells: number; editBottom: number; check: unknown } {
  const { engine, cells } = sheet(rows);
  let t = process.hrtime.bigint();
  engine.load(cells, [{ columnId: B, formula: '=[A]@row * 2' }]);
  const load = ms(t);
  t = process.hrtime.bigint();
  const top = engine.setCellValue(1, A, 1000);
  const editTop = ms(t);
  t = process.hrtime.bigint();
  engine.setCellValue(rows, A, 7);
  const editBottom = ms(t);
  return { load, editTop, topCells: top.length, editBottom, check: engine.value(rows, C) };
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
  console.log(`  ${label.padEnd(44)} ${value.toFixed(1).padStart(8)} ms   ${goal}`);
}

export async function benchFormula(): Promise<void> {
  console.log(`formula engine: ${ROWS} rows, B = [A]@row * 2 (column formula), C = running total of B (cell formulas)`);
  const cold = round(ROWS);
  line('first run: load + compute all (cold JIT)', cold.load, '(goal < 500 ms)');
  line(`first run: edit A1 -> ${cold.topCells} cells recomputed`, cold.editTop, '(goal < 50 ms)');
  const warm = round(ROWS);
  line('warm: load + compute all', warm.load, '(goal < 500 ms)');
  line(`warm: edit A1 -> ${warm.topCells} cells recomputed`, warm.editTop, '(goal < 50 ms)');
  line(`warm: edit A${ROWS} -> 3 cells recomputed`, warm.editBottom, '(goal < 50 ms)');
  line('baseline: same arithmetic on plain arrays', baseline(ROWS), '');
  console.log(`  check: C${ROWS} = ${String(warm.check)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchFormula();
}
