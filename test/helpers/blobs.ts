import fs from 'node:fs';
import path from 'node:path';

/** How many blob files the filesystem blob store holds under a data directory (as an operator would count them). */
export function blobCount(dataDir: string): number {
  const root = path.join(dataDir, 'blobs');
  if (!fs.existsSync(root)) return 0;
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => /^[0-9a-f]{32}$/.test(path.basename(f)) && !f.startsWith('tmp')).length;
}
