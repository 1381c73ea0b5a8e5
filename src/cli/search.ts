import { catchUpSearchIndex, requestSearchRebuild } from '../services/log/searchIndex.ts';
import { fail, parseCommand, withStore } from './common.ts';

export const SEARCH_USAGE = `Usage: sheetd search rebuild

Builds the full-text search index again from the data, now, and prints how long it took. The
index normally follows the change log by itself (docs/search.md); a rebuild re-reads values
that changed without their row being written (formula results, contacts' names). Searches wait
for it to finish; a running server may stay up.
`;

/** `sheetd search rebuild`. Exit status 2 on bad use. */
export async function searchCommand(argv: string[]): Promise<void> {
  const { positionals } = parseCommand('search', SEARCH_USAGE, argv, {}, true);
  if (positionals.length !== 1 || positionals[0] !== 'rebuild') fail('search: rebuild is needed (see sheetd search --help)');
  await withStore(async (store) => {
    const t0 = performance.now();
    await requestSearchRebuild(store);
    await catchUpSearchIndex(store);
    process.stdout.write(`search index rebuilt in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  });
}
