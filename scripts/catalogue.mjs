#!/usr/bin/env node
// Error catalogue coverage: which codes of src/errors.ts the test suite makes sheetd answer.
// `npm run catalogue [-- filters]` runs the suite (scripts/test.mjs) with SHEETD_ERROR_LOG set,
// so that every server under test notes each code it answers (http/errors.ts errorBody), then
// prints every code, raised or not, and the totals. `npm test` prints the one-line total.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The catalogue's codes and which of them the files in `dir` name. */
export async function coverage(dir) {
  const { register } = await import('tsx/esm/api');
  register();
  const { CATALOGUE } = await import(path.join(root, 'src/errors.ts'));
  const raised = new Set();
  for (const f of fs.readdirSync(dir)) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) if (line !== '') raised.add(Number(line));
  }
  const codes = Object.keys(CATALOGUE).map(Number).sort((a, b) => a - b);
  return { codes, raised, catalogue: CATALOGUE, count: codes.filter((c) => raised.has(c)).length };
}

export function summaryLine({ codes, count }) {
  return `error catalogue coverage: ${count} of ${codes.length} codes answered by the tests (npm run catalogue lists them)`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-codes-'));
  const child = spawn(process.execPath, [path.join(root, 'scripts/test.mjs'), ...process.argv.slice(2)], {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, SHEETD_ERROR_LOG: dir },
  });
  child.on('exit', async (code, signal) => {
    const cov = await coverage(dir);
    fs.rmSync(dir, { recursive: true, force: true });
    console.log('\ncode status  raised  message');
    for (const c of cov.codes) {
      const [status, message] = cov.catalogue[c];
      console.log(`${c} ${status}     ${cov.raised.has(c) ? 'yes   ' : 'no    '}  ${message}`);
    }
    console.log(summaryLine(cov));
    process.exit(code ?? (signal ? 1 : 0));
  });
}
