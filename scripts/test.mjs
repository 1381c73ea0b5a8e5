#!/usr/bin/env node
// Runs every test file under test/ with node:test (TypeScript via tsx), files in parallel.
// Extra arguments are file or directory filters: `npm test -- test/api`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { coverage, summaryLine } from './catalogue.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const filters = process.argv.slice(2).map((f) => path.resolve(f));

function walk(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

let files = walk(path.join(root, 'test')).sort();
if (filters.length > 0) files = files.filter((f) => filters.some((x) => f === x || f.startsWith(x + path.sep)));
// Against a running cluster (SHEETD_TEST_BASE_URL): only the files that speak HTTP to it.
if (process.env.SHEETD_TEST_BASE_URL) {
  const { clusterExcluded } = await import('../test/cluster-excluded.mjs');
  files = files.filter((f) => {
    const rel = path.relative(root, f);
    const reason = rel.startsWith('test/api' + path.sep) ? clusterExcluded[rel] : 'not an HTTP test of test/api';
    if (reason && rel.startsWith('test/api' + path.sep)) console.log(`cluster run: skipping ${rel}: ${reason}`);
    return !reason;
  });
  if (files.length === 0) {
    console.error('no test files left for a cluster run');
    process.exit(1);
  }
}
// SHEETD_TEST_PART=single-process: of test/api only the files a cluster run leaves out, whole or
// in part (`notInCluster`); .ci/run runs them on one process and the rest against the cluster.
if (process.env.SHEETD_TEST_PART === 'single-process') {
  const { clusterExcluded } = await import('../test/cluster-excluded.mjs');
  files = files.filter((f) => {
    const rel = path.relative(root, f);
    return !rel.startsWith('test/api' + path.sep) || clusterExcluded[rel] || fs.readFileSync(f, 'utf8').includes('notInCluster(');
  });
} else if (process.env.SHEETD_TEST_PART) {
  console.error(`SHEETD_TEST_PART: unknown part ${process.env.SHEETD_TEST_PART} (the one part is single-process)`);
  process.exit(1);
}
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Tests wait on I/O (HTTP, the database) much of the time: run more files than cores.
const concurrency = process.env.SHEETD_TEST_CONCURRENCY || String(Math.max(2, os.availableParallelism() * 2));
// Every server under test notes the error codes it answers (see scripts/catalogue.mjs); a run of
// the whole suite ends with the catalogue coverage, after the test runner's own closing lines.
const ownLog = process.env.SHEETD_ERROR_LOG ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-codes-'));
// Every server under test checks its JSON answers against the OpenAPI document's response schemas
// (src/http/openapi/conformance.ts) and notes those that do not validate; any such answer fails
// the run. A cluster started for the run (.ci/run) is given the same directory beforehand.
const ownCheck = process.env.SHEETD_RESPONSE_CHECK ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-answers-'));
const checkDir = process.env.SHEETD_RESPONSE_CHECK || ownCheck;
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, ...(ownLog ? { SHEETD_ERROR_LOG: ownLog } : {}), SHEETD_RESPONSE_CHECK: checkDir },
});
child.on('exit', async (code, signal) => {
  if (ownLog) {
    if (filters.length === 0) console.log(summaryLine(await coverage(ownLog)));
    fs.rmSync(ownLog, { recursive: true, force: true });
  }
  const answers = conformance(checkDir);
  if (ownCheck) fs.rmSync(ownCheck, { recursive: true, force: true });
  process.exit(answers === 0 ? (code ?? (signal ? 1 : 0)) : 1);
});

/** Prints the answers that did not validate against their operation's schema; returns how many. */
function conformance(dir) {
  const failures = [];
  const undescribed = new Set();
  for (const f of fs.readdirSync(dir)) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      if (f.startsWith('failures-')) failures.push(JSON.parse(line));
      else if (f.startsWith('undescribed-')) undescribed.add(line);
    }
  }
  if (undescribed.size > 0) console.log(`OpenAPI conformance: ${undescribed.size} operations answered without a described body (listed in src/http/openapi/extensions.ts UNDESCRIBED)`);
  if (failures.length === 0) return 0;
  const byKind = new Map();
  for (const f of failures) {
    const errors = Array.isArray(f.errors) ? f.errors.map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`).join('; ') : String(f.errors);
    const k = `${f.operation} ${f.status}: ${errors}`;
    const seen = byKind.get(k) ?? { n: 0, files: new Set(), body: f.body };
    seen.n++;
    if (f.file) seen.files.add(f.file);
    byKind.set(k, seen);
  }
  console.log(`\nOpenAPI conformance: ${failures.length} answers did not validate against their operation's response schema:`);
  for (const [k, v] of byKind) console.log(`- ${k} (${v.n}x${v.files.size > 0 ? ', ' + [...v.files].join(' ') : ''})\n    ${v.body}`);
  return failures.length;
}
