import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The text of a PDF by poppler's pdftotext, where the machine has it (CI installs poppler-utils); else undefined. */
export function pdfText(bytes: Buffer): string | undefined {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-pdf-')), 'file.pdf');
  fs.writeFileSync(file, bytes);
  try {
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  } catch {
    return undefined;
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}
