import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where sheetd's own files are, for a module that must name one (the search index's thread
 * starts `bin/sheetd.js`). It lives beside web/index.ts because the bundle bin/sheetd.js builds
 * defines import.meta.url as that file's for every module: a module in another directory would
 * resolve paths from the wrong place there (bin/sheetd.js runs such sources unbundled instead).
 */
const here = path.dirname(fileURLToPath(import.meta.url));

/** The package's root directory. */
export const PACKAGE_ROOT = path.resolve(here, '..', '..');

/** The command's script: it runs a server, or in a worker thread the role its workerData names. */
export const SHEETD_BIN = path.join(PACKAGE_ROOT, 'bin', 'sheetd.js');
