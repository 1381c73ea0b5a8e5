/**
 * `npm run bench`: every benchmark prints its figures beside a baseline measured in the same
 * run, and the goal it is held to. Nothing here asserts: figures are for reading.
 * Pass names to run some: `npm run bench -- http formula`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { printGoals } from './goals.ts';

const here = import.meta.dirname;
const suites: Array<[string, string, string]> = [
  ['http', 'http.ts', 'benchHttp'],
  ['instructions', 'instructions.ts', 'benchInstructions'],
  ['formula', 'formula.ts', 'benchFormula'],
  ['sheet', 'sheet.ts', 'benchSheet'],
  ['memory', 'memory.ts', 'benchMemory'],
  ['search', 'search.ts', 'benchSearch'],
  ['schedule', 'schedule.ts', 'benchSchedule'],
  ['import', 'import.ts', 'benchImport'],
  ['cluster', 'cluster.ts', 'benchCluster'],
  ['web', 'web.ts', 'benchWeb'],
  ['stream', 'stream.ts', 'benchStream'],
  ['peer', 'peer.ts', 'benchPeer'],
];
const wanted = process.argv.slice(2);
const failed: string[] = [];

for (const [name, file, fn] of suites) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  if (!fs.existsSync(path.join(here, file))) continue;
  console.log(`\n== ${name}`);
  const mod = (await import(`./${file}`)) as Record<string, () => Promise<void>>;
  // a suite that fails says so and the others still run: the run always reaches its end
  try {
    await mod[fn]!();
  } catch (e) {
    failed.push(name);
    console.log(`FAILED: ${name}: ${(e as Error).stack ?? String(e)}`);
  }
}
printGoals();
if (failed.length > 0) {
  console.log(`\nsuites that failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
