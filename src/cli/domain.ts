import { addDomain, readDomains, removeDomain } from '../services/identity/domains.ts';
import { apiErrorOf } from '../services/platform/errors.ts';
import { fail, parseCommand, withStore } from './common.ts';

export const DOMAIN_USAGE = `Usage: sheetd domain add DOMAIN
       sheetd domain list
       sheetd domain remove DOMAIN

The organization's validated email domains (Make Alternate Email Primary needs them).
`;

/**
 * `sheetd domain add|list|remove [DOMAIN]`. Exit status 2 on bad use or a refused change.
 */
export async function domainCommand(argv: string[]): Promise<void> {
  const { positionals } = parseCommand('domain', DOMAIN_USAGE, argv, {}, true);
  const [sub, ...args] = positionals;
  if (sub !== 'add' && sub !== 'list' && sub !== 'remove') fail('domain: add, list or remove is needed (see sheetd domain --help)');
  if (sub === 'list' ? args.length !== 0 : args.length !== 1) fail(`domain ${sub} needs ${sub === 'list' ? 'no argument' : 'one DOMAIN'} (see sheetd domain --help)`);
  await withStore(async (store, orgId, author) => {
    if (sub === 'list') {
      for (const d of await readDomains(store.db, orgId)) process.stdout.write(`${d.domain}\n`);
      return;
    }
    const domain = args[0]!;
    try {
      if (sub === 'add') {
        const row = await addDomain(store, author, domain);
        process.stdout.write(`${row.domain}\n`);
      } else {
        await removeDomain(store, author, domain);
      }
    } catch (e) {
      const refusal = apiErrorOf(e);
      const code = refusal?.errorCode;
      fail(code === 1129 ? `${domain} is already validated` : code === 1006 ? `${domain} is not a validated domain` : (refusal ?? (e as Error)).message);
    }
  });
}
