/**
 * Formula engine figures: a 25,000-row sheet where B = [A]@row * 2 (a column formula) and C
 * is a running total over B, written two ways:
 *
 *   cell-to-cell   C1 = B1, Cn = C(n-1) + Bn (one cell formula per row)
 *   SUM range      C = SUM([B]$1:[B]@row) (a column formula: every row sums from the top)
 *
 * For each form it prints the time to load and compute everything and to recompute after one
 * edit in column A (at the top: every C cell changes; at the bottom: three cells), each beside
 * its goal, on a cold process (a fresh node process for each engine and form, as a server
 * started for the request would be: no JIT, and no garbage of the other workloads for the
 * collector) and warm (the fourth round in this process), and a plain-array baseline doing the
 * same arithmetic. Each figure is printed beside HyperFormula's on the same workload
 * (same sheet, same edits; its own cold and warm rounds) with the ratio sheetd / HyperFormula.
 * HyperFormula is GPL-3.0 (used with licenseKey 'gpl-v3'): a devDependency for this benchmark
 * only, never imported from src/. Never asserts.
 *
 *   node --import tsx bench/formula.ts     (or: npm run bench -- formula)
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HyperFormula, type RawCellContent } from 'hyperformula';
import { FormulaEngine, type LoadCell } from '../src/engine/formula/index.ts';
import { recordGoal } from './goals.ts';
import { median } from './stats.ts';

const ROWS = 25_000;
const A = 1;
const B = 2;
const C = 3;

type Form = 'cell-to-cell' | 'SUM range';
/** Issue 32: the first edit in a cold process, in every form. */
const FIRST_EDIT_GOAL = 40;

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


/** One engine under measurement: load() computes everything; edit() writes column A and returns the number of cells it reports changed. */
interface Subject {
  load(): void;
  edit(row: number, value: number): number;
  valueC(row: number): unknown;
  dispose(): void;
}

function sheetdSubject(rows: number, form: Form): Subject {
  const { engine, cells, columnFormulas } = sheet(rows, form);
  return {
    load: () => engine.load(cells, columnFormulas),
    edit: (row, value) => engine.setCellValue(row, A, value).length,
    valueC: (row) => engine.value(row, C),
    dispose: () => {},
  };
}

/**
 * The same sheet on HyperFormula (GPL-3.0, a devDependency used here only; never imported from
 * src/): A = i % 100, B = A * 2, C as cell-to-cell formulas or SUM($B$1:Bn). Load is
 * buildFromArray (parse + compute all); an edit is setCellContents on A.
 */
function hyperFormulaSubject(rows: number, form: Form): Subject {
  const data: RawCellContent[][] = [];
  for (let i = 0; i < rows; i++) {
    const r = i + 1;
    data.push([i % 100, `=A${r}*2`, form === 'cell-to-cell' ? (i === 0 ? '=B1' : `=C${i}+B${r}`) : `=SUM($B$1:B${r})`]);
  }
  let hf: HyperFormula | undefined;
  const get = (): HyperFormula => {
    if (hf === undefined) throw new Error('HyperFormula: not loaded');
    return hf;
  };
  return {
    load: () => {
      hf = HyperFormula.buildFromArray(data, { licenseKey: 'gpl-v3' });
    },
    edit: (row, value) => get().setCellContents({ sheet: 0, row: row - 1, col: A - 1 }, [[value]]).length,
    valueC: (row) => get().getCellValue({ sheet: 0, row: row - 1, col: C - 1 }),
    dispose: () => hf?.destroy(),
  };
}

/** One measured round: load + compute all, then edits at the top (every C cell changes) and one at the bottom. */
function round(rows: number, make: () => Subject): Round {
  const subject = make();
  try {
    let t = process.hrtime.bigint();
    subject.load();
    const load = ms(t);
    t = process.hrtime.bigint();
    const topCells = subject.edit(1, 1000);
    const editTop = ms(t);
    const more: number[] = [];
    for (let i = 1; i <= 5; i++) {
      t = process.hrtime.bigint();
      subject.edit(1, 1000 + i);
      more.push(ms(t));
    }
    t = process.hrtime.bigint();
    const bottomCells = subject.edit(rows, 7);
    const editBottom = ms(t);
    return { load, editTop, editTopMedian: median(more), topCells, editBottom, bottomCells, check: subject.valueC(rows) };
  } finally {
    subject.dispose();
  }
}

const SUBJECTS = { sheetd: sheetdSubject, HyperFormula: hyperFormulaSubject } as const;
type EngineName = keyof typeof SUBJECTS;

/** The first round in a fresh process of its own (this file with --cold). */
function coldProcess(engine: EngineName, form: Form): Round {
  const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--cold', engine, form], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as Round;
}

/** Cold processes run this many times; the round of median first edit is kept (one cold process is one sample of a noisy machine). */
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 3);

function coldRound(engine: EngineName, form: Form): Round {
  const rounds = Array.from({ length: COLD_RUNS }, () => coldProcess(engine, form)).sort((a, b) => a.editTop - b.editTop);
  return rounds[rounds.length >> 1]!;
}

/** Cold round in a fresh process; here three unmeasured rounds (as a running server has seen), then the warm one. */
function coldAndWarm(rows: number, engine: EngineName, form: Form): { cold: Round; warm: Round } {
  const cold = coldRound(engine, form);
  const make = () => SUBJECTS[engine](rows, form);
  for (let i = 0; i < 3; i++) round(rows, make);
  return { cold, warm: round(rows, make) };
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

/** sheetd beside HyperFormula on the same step, with the ratio (below 1: sheetd is faster). */
function pair(label: string, ours: number, theirs: number, goal: string): void {
  const ratio = theirs > 0 ? (ours / theirs).toFixed(2) + 'x' : '-';
  console.log(`  ${label.padEnd(42)} ${ours.toFixed(1).padStart(9)} ms ${theirs.toFixed(1).padStart(11)} ms ${ratio.padStart(10)}   ${goal}`);
}

function report(form: Form): void {
  const formula = form === 'cell-to-cell' ? 'C1 = B1, Cn = C(n-1) + Bn (cell formulas)' : 'C = SUM([B]$1:[B]@row) (column formula)';
  console.log(`formula engine, ${form}: ${ROWS} rows, B = [A]@row * 2 (column formula), ${formula}`);
  // each engine's first round in this process is its cold JIT
  const ours = coldAndWarm(ROWS, 'sheetd', form);
  const hf = coldAndWarm(ROWS, 'HyperFormula', form);
  console.log(`  ${''.padEnd(42)} ${'sheetd'.padStart(12)} ${'HyperFormula'.padStart(14)} ${'sheetd/HF'.padStart(10)}`);
  pair('cold process: load + compute all', ours.cold.load, hf.cold.load, '(goal < 500 ms)');
  pair('cold process: first edit A1', ours.cold.editTop, hf.cold.editTop, `(goal < ${FIRST_EDIT_GOAL} ms; median of ${COLD_RUNS} processes)`);
  pair('warm: load + compute all', ours.warm.load, hf.warm.load, '(goal < 500 ms)');
  pair('warm: edit A1', ours.warm.editTop, hf.warm.editTop, '(goal < 50 ms)');
  pair('warm: edit A1 again, median of 5', ours.warm.editTopMedian, hf.warm.editTopMedian, '(goal < 50 ms)');
  pair(`warm: edit A${ROWS}`, ours.warm.editBottom, hf.warm.editBottom, '(goal < 50 ms)');
  console.log(`  cells changed by edit A1: sheetd ${ours.warm.topCells}, HyperFormula ${hf.warm.topCells}; by edit A${ROWS}: ${ours.warm.bottomCells}, ${hf.warm.bottomCells}`);
  console.log(`  check: C${ROWS} = ${String(ours.warm.check)} (sheetd), ${String(hf.warm.check)} (HyperFormula)`);
  recordGoal({
    key: 'first-edit', variant: form, value: `${ours.cold.editTop.toFixed(1)} ms`, met: ours.cold.editTop < FIRST_EDIT_GOAL,
    baseline: `HyperFormula ${hf.cold.editTop.toFixed(1)} ms; cold load ${ours.cold.load.toFixed(0)} ms (goal < 500 ms)`,
  });
}

export async function benchFormula(): Promise<void> {
  console.log(`HyperFormula ${HyperFormula.version} (GPL-3.0, licenseKey 'gpl-v3'; a devDependency used by bench/ only, never by sheetd itself)`);
  report('cell-to-cell');
  report('SUM range');
  line('baseline: same arithmetic on plain arrays', baseline(ROWS), '');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--cold');
  if (at >= 0) {
    const engine = process.argv[at + 1] as EngineName;
    const form = process.argv[at + 2] as Form;
    console.log(JSON.stringify(round(ROWS, () => SUBJECTS[engine](ROWS, form))));
  } else {
    await benchFormula();
  }
}
