import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig } from '../config.ts';
import { openStore, type Store } from '../store/db.ts';
import { ensureBootstrap } from '../services/identity/bootstrap.ts';
import type { EventAuthor } from '../services/log/events.ts';

/** Bad use of a command: one line on stderr, exit status 2. */
export function fail(msg: string): never {
  process.stderr.write(`sheetd: ${msg}\n`);
  process.exit(2);
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * A subcommand's arguments: `--help` (or -h) prints its usage and exits 0; an unknown option, a
 * missing value or a stray argument is one line on stderr and exit 2.
 */
export function parseCommand<T extends Options>(command: string, usage: string, args: string[], options: T, allowPositionals = false) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals, strict: true });
  } catch (e) {
    // node's messages go on to explain `--`; the first sentence says what is wrong
    const first = ((e as Error).message.split(/\.\s/)[0] ?? '').replace(/\.$/, '');
    fail(`${command}: ${first} (see sheetd ${command} --help)`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  return parsed;
}

/** Opens the configured database (bootstrapping an empty one) for one command, then closes it. */
export async function withStore<R>(fn: (store: Store, orgId: number, author: EventAuthor) => Promise<R>): Promise<R> {
  const config = loadConfig();
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const boot = await ensureBootstrap(store, { adminEmail: config.adminEmail, dataDir: config.dataDir });
    if (boot.created) process.stderr.write(`sheetd: created the organization; the admin's API token is in ${boot.tokenFile}\n`);
    const author: EventAuthor = { orgId: boot.orgId, userId: null, requestUserId: null, accessTokenName: null, source: 'CLI' };
    return await fn(store, boot.orgId, author);
  } finally {
    await store.close();
  }
}
