import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The web app's sources (TypeScript and CSS for the browser). */
export const APP_DIR = path.join(here, 'app');

/**
 * The pages of the web app: one esbuild entry each, `src/web/app/<name>.ts`. A page template
 * names its entry (`home`, `sheet`, ...) and gets the hashed script and stylesheet of it.
 */
export const ENTRIES = ['home', 'sheet', 'report', 'dashboard', 'publishedDashboard', 'people'] as const;
export type Entry = (typeof ENTRIES)[number];

export interface Assets {
  /** The directory the files are served from (at /assets/). */
  dir: string;
  /** Per entry: its script and stylesheet, as /assets/ URLs with content hashes in the names. */
  entries: Map<string, { script: string; css: string | null }>;
}

let built: Promise<Assets> | null = null;

/**
 * Bundles the web app once per process (esbuild: ESM, code splitting, minified, content hashes
 * in every name). The output goes to a directory named after a hash of the sources and esbuild's
 * version under the system's temp directory, so another process (or the next start) with the
 * same sources finds it built; a build is written to a directory of its own and renamed into
 * place, so processes building at once never see half of one.
 */
export function webAssets(): Promise<Assets> {
  built ??= build().catch((e: unknown) => {
    built = null;
    throw e;
  });
  return built;
}

async function build(): Promise<Assets> {
  // imported when the web app is first asked for: a server that only answers the API never loads it
  const esbuild = await import('esbuild');
  const key = sourceHash(esbuild.version);
  const root = path.join(os.tmpdir(), `sheetd-web-${process.getuid?.() ?? 'u'}`);
  const dir = path.join(root, key);
  const manifestFile = path.join(dir, 'manifest.json');
  if (!fs.existsSync(manifestFile)) {
    fs.mkdirSync(root, { recursive: true });
    const tmp = path.join(root, `.build-${randomBytes(6).toString('hex')}`);
    const entryPoints = ENTRIES.filter((e) => fs.existsSync(path.join(APP_DIR, `${e}.ts`))).map((e) => ({ in: path.join(APP_DIR, `${e}.ts`), out: e }));
    const result = await esbuild.build({
      entryPoints,
      bundle: true,
      splitting: true,
      format: 'esm',
      minify: true,
      target: ['chrome110', 'firefox110', 'safari16'],
      outdir: tmp,
      entryNames: '[name]-[hash]',
      chunkNames: 'chunks/[name]-[hash]',
      assetNames: 'files/[name]-[hash]',
      metafile: true,
      legalComments: 'linked',
      logLevel: 'silent',
      loader: { '.svg': 'file', '.woff2': 'file' },
    });
    const entries: Record<string, { script: string; css: string | null }> = {};
    for (const [file, out] of Object.entries(result.metafile.outputs)) {
      if (!out.entryPoint) continue;
      const name = path.basename(out.entryPoint, '.ts');
      entries[name] = { script: `/assets/${path.relative(tmp, path.resolve(file))}`, css: out.cssBundle ? `/assets/${path.relative(tmp, path.resolve(out.cssBundle))}` : null };
    }
    fs.writeFileSync(path.join(tmp, 'manifest.json'), JSON.stringify(entries));
    try {
      fs.renameSync(tmp, dir);
    } catch {
      // another process put the same build in place first
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  const entries = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, { script: string; css: string | null }>;
  return { dir, entries: new Map(Object.entries(entries)) };
}

/** A hash of every file the bundle is made of: the app's sources and the versions of its packages. */
function sourceHash(esbuildVersion: string): string {
  const h = createHash('sha256');
  h.update(esbuildVersion);
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        h.update(path.relative(APP_DIR, p));
        h.update(fs.readFileSync(p));
      }
    }
  };
  walk(APP_DIR);
  const lock = path.join(here, '..', '..', 'package-lock.json');
  if (fs.existsSync(lock)) h.update(fs.readFileSync(lock));
  return h.digest('hex').slice(0, 16);
}
