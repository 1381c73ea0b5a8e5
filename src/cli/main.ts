import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../config.ts';
import { openStore } from '../store/db.ts';
import { ensureBootstrap } from '../services/bootstrap.ts';
import { createUser } from '../services/users.ts';
import { createToken } from '../services/tokens.ts';
import { parseScopes } from '../services/scopes.ts';
import { findUserByEmail } from '../store/users.ts';
import { startServer } from '../server.ts';
import { domainCommand } from './domain.ts';
import type { EventAuthor } from '../services/events.ts';

const HELP = `sheetd: a self-hostable sheet collaboration server (Sheet Collaboration Service API 2.0)

Usage:
  sheetd serve                       start the server (the default command)
  sheetd user add --email E [--first-name F] [--last-name L] [--admin] [--licensed]
                                     add a user to the organization
  sheetd token create --email E [--name N] [--scopes S1,S2] [--expires-in-days D]
                                     create a raw API token for a user and print it
  sheetd domain add|list|remove [DOMAIN]
                                     manage the organization's validated email domains
  sheetd --help                      this text

Configuration comes from the environment (HOST, PORT, SHEETD_DATA_DIR, DATABASE_URL,
REDIS_URL, SHEETD_ADMIN_EMAIL, SHEETD_TLS_CERT, SHEETD_TLS_KEY, SHEETD_RATE_LIMIT, ...):
see the README.
`;

function fail(msg: string): never {
  process.stderr.write(`sheetd: ${msg}\n`);
  process.exit(2);
}

async function withStore<T>(fn: (store: Awaited<ReturnType<typeof openStore>>, orgId: number) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const boot = await ensureBootstrap(store, { adminEmail: config.adminEmail, dataDir: config.dataDir });
    if (boot.created) process.stderr.write(`sheetd: created the organization; the admin's API token is in ${boot.tokenFile}\n`);
    return await fn(store, boot.orgId);
  } finally {
    await store.close();
  }
}

const cli: EventAuthor = { orgId: 0, userId: null, requestUserId: null, accessTokenName: null, source: 'CLI' };

async function userAdd(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' },
      admin: { type: 'boolean' }, licensed: { type: 'boolean' },
    },
  });
  if (!values.email) fail('user add needs --email');
  await withStore(async (store, orgId) => {
    const u = await store.db.transaction().execute((tx) =>
      createUser(tx, { ...cli, orgId }, orgId, {
        email: values.email!, firstName: values['first-name'] ?? null, lastName: values['last-name'] ?? null,
        admin: !!values.admin, licensedSheetCreator: !!values.licensed || !!values.admin,
      }),
    ).catch((e: { message?: string }) => fail(e.message ?? String(e)));
    process.stdout.write(`${u.id}\n`);
  });
}

async function tokenCreate(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { email: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, 'expires-in-days': { type: 'string' } },
  });
  if (!values.email) fail('token create needs --email');
  let scopes: ReturnType<typeof parseScopes> = 'ALL';
  if (values.scopes) {
    try {
      scopes = parseScopes(values.scopes);
    } catch (e) {
      fail((e as Error).message);
    }
  }
  let expiresAt: number | null = null;
  if (values['expires-in-days'] !== undefined) {
    const d = Number(values['expires-in-days']);
    if (!(d > 0)) fail('--expires-in-days must be a positive number');
    expiresAt = Date.now() + d * 86_400_000;
  }
  await withStore(async (store, orgId) => {
    const user = await findUserByEmail(store.db, values.email!);
    if (!user) fail(`no user with email ${values.email}`);
    const tok = await store.db.transaction().execute((tx) =>
      createToken(tx, { ...cli, orgId }, user.id, { name: values.name ?? 'cli', scopes: scopes === 'ALL' ? 'ALL' : [...scopes], expiresAt }),
    );
    process.stdout.write(`${tok.raw}\n`);
  });
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel });
  const server = await startServer(config, { logger });
  logger.info(`sheetd serving the API at ${server.url}/2.0`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: finishing in-flight requests and closing`);
    server.close().then(
      () => process.exit(0),
      (e: unknown) => {
        logger.error({ err: e }, 'error while closing');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

export async function main(argv: string[]): Promise<void> {
  const [cmd, sub, ...rest] = argv;
  if (cmd === undefined || cmd === 'serve') return serve();
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (cmd === 'user' && sub === 'add') return userAdd(rest);
  if (cmd === 'token' && sub === 'create') return tokenCreate(rest);
  if (cmd === 'domain') return domainCommand(sub, rest);
  process.stderr.write(HELP);
  process.exit(2);
}

await main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`sheetd: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
