#!/usr/bin/env node
// Error catalogue coverage: which codes of src/errors.ts the test suite makes sheetd answer.
// `npm run catalogue [-- filters]` runs the suite (scripts/test.mjs) with SHEETD_ERROR_LOG set,
// so that every server under test notes each code it answers (http/errors.ts errorBody), then
// prints three lists: the codes the tests answer; the codes sheetd cannot answer, with the reason
// docs/errors.md gives for each; and the codes that can occur but no test answers (the gap).
// `npm test` prints the one-line total.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The codes docs/errors.md lists as ones sheetd never answers, with the reason: the rows
 * `| code | status | reason |` of its table under "Codes sheetd never answers".
 */
export function cannotOccur() {
  const text = fs.readFileSync(path.join(root, 'docs/errors.md'), 'utf8');
  const start = text.indexOf('## Codes sheetd never answers');
  if (start < 0) throw new Error('docs/errors.md: no section "Codes sheetd never answers"');
  const end = text.indexOf('\n## ', start + 1);
  const out = new Map();
  for (const line of text.slice(start, end < 0 ? undefined : end).split('\n')) {
    const m = /^\|\s*(\d{4})\s*\|\s*(\d{3})\s*\|\s*(.+?)\s*\|\s*$/.exec(line);
    if (m) out.set(Number(m[1]), { status: Number(m[2]), reason: m[3] });
  }
  return out;
}

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
  const never = cannotOccur();
  const count = codes.filter((c) => raised.has(c)).length;
  const neverCount = codes.filter((c) => never.has(c) && !raised.has(c)).length;
  return { codes, raised, never, catalogue: CATALOGUE, count, neverCount, gap: codes.length - count - neverCount };
}

export function summaryLine({ codes, count, neverCount, gap }) {
  return (
    `error catalogue coverage: ${count} of ${codes.length} codes answered by the tests, ${neverCount} cannot occur ` +
    `(docs/errors.md), ${gap} can occur but no test answers them (npm run catalogue lists them)`
  );
}

/** The three lists, and the contradictions: a code listed as impossible that a test answers, a
 * listed code missing from the catalogue, a listed status that is not the catalogue's. */
export function report(cov) {
  const lines = [];
  const row = (c, text) => `${c} ${cov.catalogue[c][0]}  ${text}`;
  lines.push('', 'Answered by the tests:');
  for (const c of cov.codes) if (cov.raised.has(c)) lines.push(row(c, cov.catalogue[c][1]));
  lines.push('', 'Cannot occur in sheetd (docs/errors.md):');
  for (const c of cov.codes) if (cov.never.has(c) && !cov.raised.has(c)) lines.push(row(c, cov.never.get(c).reason));
  lines.push('', 'Can occur but no test answers them:');
  for (const c of cov.codes) if (!cov.raised.has(c) && !cov.never.has(c)) lines.push(row(c, cov.catalogue[c][1]));
  const wrong = [];
  for (const [c, { status }] of cov.never) {
    if (!cov.catalogue[c]) wrong.push(`${c}: listed in docs/errors.md but not in the catalogue`);
    else if (cov.catalogue[c][0] !== status) wrong.push(`${c}: docs/errors.md says ${status}, the catalogue ${cov.catalogue[c][0]}`);
    else if (cov.raised.has(c)) wrong.push(`${c}: listed in docs/errors.md as impossible, yet a test made sheetd answer it`);
  }
  if (wrong.length > 0) lines.push('', 'Contradictions:', ...wrong);
  return { text: lines.join('\n'), wrong: wrong.length };
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
    const { text, wrong } = report(cov);
    console.log(text);
    console.log(summaryLine(cov));
    process.exit(code || (signal ? 1 : 0) || (wrong > 0 ? 1 : 0));
  });
}
