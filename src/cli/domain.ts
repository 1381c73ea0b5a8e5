import { loadConfig } from '../config.ts';
import { openStore } from '../store/db.ts';
import { ensureBootstrap } from '../services/bootstrap.ts';
import { addDomain, readDomains, removeDomain } from '../services/domains.ts';
import type { EventAuthor } from '../services/events.ts';

/**
 * `sheetd domain add|list|remove [DOMAIN]`: the organization's validated email domains
 * (Make Alternate Email Primary needs them). Exit status 2 on bad use or a refused change.
 */
export async function domainCommand(sub: string | undefined, args: string[]): Promise<void> {
  const fail = (msg: string): never => {
    process.stderr.write(`sheetd: ${msg}\n`);
    process.exit(2);
  };
  if (sub !== 'add' && sub !== 'list' && sub !== 'remove') fail('usage: sheetd domain add|list|remove [DOMAIN]');
  if (sub !== 'list' && args.length !== 1) fail(`domain ${sub} needs one DOMAIN`);
  const config = loadConfig();
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const { orgId } = await ensureBootstrap(store, { adminEmail: config.adminEmail, dataDir: config.dataDir });
    const author: EventAuthor = { orgId, userId: null, requestUserId: null, accessTokenName: null, source: 'CLI' };
    if (sub === 'list') {
      for (const d of await readDomains(store.db, orgId)) process.stdout.write(`${d.domain}\n`);
      return;
    }
    const domain = args[0]!;
    try {
      if (sub === 'add') {
        const row = await store.db.transaction().execute((tx) => addDomain(tx, author, domain));
        process.stdout.write(`${row.domain}\n`);
      } else {
        await store.db.transaction().execute((tx) => removeDomain(tx, author, domain));
      }
    } catch (e) {
      const code = (e as { errorCode?: number }).errorCode;
      fail(code === 1129 ? `${domain} is already validated` : code === 1006 ? `${domain} is not a validated domain` : (e as Error).message);
    }
  } finally {
    await store.close();
  }
}
