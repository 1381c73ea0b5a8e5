/**
 * The figures of issue 32 ("speed where people feel it"), each beside its goal and the baseline
 * it is measured against in the same run. Suites record what they measured here; bench/run.ts
 * prints the table at the end, so one run shows which goals are met. A figure a suite did not
 * run (not asked for, or PostgreSQL not set) is printed as not measured.
 */
export interface GoalFigure {
  /** Key of the table row, in the order printed. */
  key: string;
  /** Store or variant: 'SQLite', 'PostgreSQL', 'cell-to-cell'; '' when there is one. */
  variant: string;
  /** The figure as measured, with its unit. */
  value: string;
  /** The same-run baseline it is compared to, in words with its figure. */
  baseline: string;
  /** Whether the goal is met by this run's figure. */
  met: boolean;
}

/** The table: key, label, goal, the figure it started from ("now" in the issue, on this 2-core machine). */
export const TABLE: Array<{ key: string; label: string; goal: string; was: string }> = [
  { key: 'import-csv', label: 'import CSV, 100,000 rows x 5', goal: 'under 1.5 s', was: '7.2 s' },
  { key: 'import-xlsx', label: 'import XLSX, 100,000 rows x 5', goal: 'under 3 s', was: '9.2 s' },
  { key: 'add-rows', label: 'add 500 rows at 25,000 vs HTTP floor + raw insert', goal: 'within 2x on both', was: 'SQLite 3.1x, PostgreSQL 4.5x' },
  { key: 'first-edit', label: 'first formula edit feeding 25,000 cells, cold process', goal: 'under 40 ms every form', was: '57 ms cell-to-cell, 70 ms SUM range' },
  { key: 'users-me', label: 'GET /2.0/users/me vs a bare Fastify route', goal: 'at least 0.7', was: '0.54' },
  { key: 'get-sheet', label: 'get whole sheet (500,000 cells) vs JSON.stringify', goal: 'within 1.15x', was: '1.29x' },
  { key: 'get-sheet-gzip', label: 'get whole sheet, gzip vs plain', goal: 'within 1.3x of plain', was: '1.66x' },
  { key: 'rss', label: 'RSS with the 500,000-cell sheet loaded and served', goal: 'at most 200 MB', was: '271 MB' },
  { key: 'peer', label: 'vs NocoDB 0.301.3, same REST workload (suite peer; needs NOCODB_DIR)', goal: 'at least 6x faster on each step', was: 'insert 4.7x, read 3.6x, update 2.9x; CPU 4.9x less' },
];

const recorded: GoalFigure[] = [];

export function recordGoal(f: GoalFigure): void {
  recorded.push(f);
}

export function printGoals(): void {
  console.log('\n== issue 32 figures (this run; the goal; "was": the issue\'s figure on this machine)');
  for (const row of TABLE) {
    const mine = recorded.filter((f) => f.key === row.key);
    console.log(`${row.label}   goal: ${row.goal}   was: ${row.was}`);
    if (mine.length === 0) console.log('    not measured in this run');
    for (const f of mine) {
      const name = f.variant === '' ? '' : `${f.variant}: `;
      console.log(`    ${(name + f.value).padEnd(36)} ${(f.met ? 'met' : 'NOT met').padEnd(8)} baseline: ${f.baseline}`);
    }
  }
}
