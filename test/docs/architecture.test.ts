import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// docs/architecture.md names every folder of src/ and of src/services/ with its purpose, so a
// newcomer finds a rule from the tree; a folder added without a line there fails here.
const root = path.resolve(import.meta.dirname, '..', '..');
const doc = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');

function folders(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

/** The lines of the indented tree that follow `heading` (a line holding only it, e.g. "    src/"). */
function treeUnder(heading: string): string {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.trim() === heading);
  assert.ok(start >= 0, `docs/architecture.md has a tree headed ${heading}`);
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.trim() !== '' && !l.startsWith('  ')) break;
    out.push(l);
  }
  return out.join('\n');
}

/** A folder counts as named when a line of the tree begins with `name/` followed by its purpose. */
function missing(tree: string, names: string[]): string[] {
  return names.filter((n) => !new RegExp(`^ +${n}/ +\\S`, 'm').test(tree));
}

test('docs/architecture.md names every folder of src/ with its purpose', () => {
  assert.deepEqual(missing(treeUnder('src/'), folders('src')), []);
});

test('docs/architecture.md names every folder of src/services/ with its purpose', () => {
  assert.deepEqual(missing(treeUnder('services/'), folders('src/services')), []);
});
