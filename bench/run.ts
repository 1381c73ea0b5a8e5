/**
 * `npm run bench`: every benchmark prints its figures beside a baseline measured in the same
 * run, and the goal it is held to. Nothing here asserts: figures are for reading.
 * Pass names to run some: `npm run bench -- http formula`.
 */
import fs from 'node:fs';
import path from 'node:path';

const here = import.meta.dirname;
const suites: Array<[string, string, string]> = [
  ['http', 'http.ts', 'benchHttp'],
  ['formula', 'formula.ts', 'benchFormula'],
  ['sheet', 'sheet.ts', 'benchSheet'],
  ['memory', 'memory.ts', 'benchMemory'],
  ['search', 'search.ts', 'benchSearch'],
  ['import', 'import.ts', 'benchImport'],
  ['cluster', 'cluster.ts', 'benchCluster'],
  ['web', 'web.ts', 'benchWeb'],
  ['stream', 'stream.ts', 'benchStream'],
];
const wanted = process.argv.slice(2);

for (const [name, file, fn] of suites) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  if (!fs.existsSync(path.join(here, file))) continue;
  console.log(`\n== ${name}`);
  const mod = (await import(`./${file}`)) as Record<string, () => Promise<void>>;
  await mod[fn]!();
}
