#!/usr/bin/env node
// Runs sheetd from its TypeScript sources without a build step: the sources are bundled into one
// JavaScript file (esbuild, packages left external) the first time they are run as they are, and
// that file is run from then on. Running through tsx instead keeps a module-loader thread and the
// transformed sources with their source maps in the process: about 55 MB more resident memory
// for a server (docs/operations.md). SHEETD_RUN_SOURCES=1 runs the sources through tsx.
// A server starts this file again in a worker thread for its search index (workerData names the
// role: src/services/log/indexThread.ts); that thread runs a bundle of its own entry, a small one.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, workerData } from 'node:worker_threads';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const indexThread = !isMainThread && workerData?.role === 'sheetd-search-index';
const entry = indexThread ? path.join(src, 'services', 'log', 'indexThreadMain.ts') : path.join(src, 'cli', 'main.ts');

/** Every file under src, in a stable order. */
function sourceFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|json)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** The bundle of the sources as they are now, built when there is none: its path, or undefined when it cannot be written. */
async function bundle() {
  const hash = createHash('sha256');
  const pkg = fs.readFileSync(path.join(root, 'package.json'));
  hash.update(pkg);
  const web = path.join(src, 'web', 'index.ts');
  for (const f of sourceFiles(src)) {
    const text = fs.readFileSync(f);
    // import.meta.url is defined as that of web/index.ts in the bundle: it serves the files beside
    // it (web/assets.ts too); a user elsewhere needs the sources
    if (path.dirname(f) !== path.dirname(web) && text.includes('import.meta')) return undefined;
    hash.update(path.relative(src, f)).update('\0').update(text).update('\0');
  }
  const dir = path.join(root, '.build');
  const sources = hash.digest('hex').slice(0, 16);
  const file = path.join(dir, `sheetd-${sources}${indexThread ? '-index' : ''}.mjs`);
  if (fs.existsSync(file)) return file;
  try {
    fs.mkdirSync(dir, { recursive: true });
    const esbuild = await import('esbuild');
    const tmp = `${file}.${process.pid}.tmp`;
    await esbuild.build({
      entryPoints: [entry],
      outfile: tmp,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      // the only source that locates files beside itself (its page templates and stylesheet)
      define: { 'import.meta.url': JSON.stringify(pathToFileURL(web).href) },
      logLevel: 'silent',
    });
    // processes started at once (a cluster) each build; the rename makes whichever lands whole
    fs.renameSync(tmp, file);
    // bundles of earlier sources go (a process still running one has it loaded), and files of builds cut short
    for (const old of fs.readdirSync(dir)) {
      const p = path.join(dir, old);
      if (!old.startsWith('sheetd-') || p === file || (old.startsWith(`sheetd-${sources}`) && old.endsWith('.mjs'))) continue;
      if (!old.endsWith('.tmp') || Date.now() - fs.statSync(p).mtimeMs > 600_000) fs.rmSync(p, { force: true });
    }
    return file;
  } catch (e) {
    process.stderr.write(`sheetd: running the sources through tsx (could not bundle them: ${e instanceof Error ? e.message : String(e)})\n`);
    return undefined;
  }
}

const built = process.env.SHEETD_RUN_SOURCES === '1' ? undefined : await bundle();
if (built !== undefined) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(entry).href);
}
