import { createLogger } from '../logger.ts';
import { loadConfig } from '../config.ts';
import { createUser } from '../services/identity/users.ts';
import { createToken } from '../services/identity/tokens.ts';
import { parseScopes } from '../services/access/scopes.ts';
import { apiErrorOf } from '../services/platform/errors.ts';
import { findUserByEmail } from '../store/users.ts';
import { startServer } from '../server.ts';
import { fail, parseCommand, withStore } from './common.ts';
import { domainCommand } from './domain.ts';
import { webhookCommand } from './webhook.ts';
import { searchCommand } from './search.ts';
import { exportCommand, importCommand } from './transfer.ts';
import { APP_USAGE, SET_PASSWORD_USAGE, appCommands, readPassword, setPasswordCommand } from './oauth.ts';
import { MIN_PASSWORD_LENGTH, setPassword } from '../services/identity/sessions.ts';
import { clock } from '../clock.ts';

const HELP = `sheetd: a self-hostable sheet collaboration server (Sheet Collaboration Service API 2.0)

Usage:
  sheetd serve                       start the server (the default command)
  sheetd user add --email E [--first-name F] [--last-name L] [--admin] [--licensed] [--password-stdin]
                                     add a user to the organization
  sheetd user set-password --email E set a user's sign-in password (read from standard input)
  sheetd app create --name N --redirect-url U [--json]
                                     register an OAuth 2.0 app and print its client id and secret
  sheetd app regenerate-secret --client-id C [--json]
                                     give an app a new client secret
  sheetd token create --email E [--name N] [--scopes S1,S2] [--expires-in-days D]
                                     create a raw API token for a user and print it
  sheetd domain add|list|remove [DOMAIN]
                                     manage the organization's validated email domains
  sheetd webhook disable|restore ID  stop a webhook as the operator, or give it back to its owner
  sheetd search rebuild              build the full-text search index again from the data
  sheetd import FILE --email E [--folder ID] [--workspace ID]
                                     import a CSV or XLSX file as a new sheet (prints its id)
  sheetd export SHEET_ID --format csv|xlsx|pdf [--out FILE]
                                     write a sheet as CSV, Excel or PDF
  sheetd --help                      this text; COMMAND --help for one command

Configuration comes from the environment (HOST, PORT, SHEETD_DATA_DIR, DATABASE_URL,
REDIS_URL, SHEETD_ADMIN_EMAIL, SHEETD_TLS_CERT, SHEETD_TLS_KEY, SHEETD_RATE_LIMIT, ...):
see the README.
`;

const SERVE_USAGE = `Usage: sheetd serve [--test-mode [--seed FIXTURE.json]]

Starts the server: the API at http://HOST:PORT/2.0. Everything else is configured through the
environment (see the README's Configuration table). SIGTERM finishes in-flight requests and exits.
  --test-mode   enable test mode (as SHEETD_TEST_MODE=true): reset, snapshots, clock, faults and
                the request journal under /2.0/sheetd/test/ (docs/testing.md). Never in production.
  --seed FILE   in test mode, load this fixture at start (as POST /2.0/sheetd/test/seed)
`;

const USER_USAGE = `Usage: sheetd user add --email E [--first-name F] [--last-name L] [--admin] [--licensed] [--password-stdin]
       sheetd user set-password --email E

Adds a user to the organization and prints its id.
  --email E          the user's email address (required)
  --first-name F     first name
  --last-name L      last name
  --admin            a system admin (also a licensed sheet creator)
  --licensed         a licensed sheet creator
  --password-stdin   read the user's sign-in password from standard input (one line)

set-password: ${SET_PASSWORD_USAGE.split('\n').slice(2).join('\n')}`;

const TOKEN_USAGE = `Usage: sheetd token create --email E [--name N] [--scopes S1,S2] [--expires-in-days D]

Creates a raw API token for an existing user and prints it (only its hash is stored).
  --email E            the user (required)
  --name N             the token's name (default: cli)
  --scopes S1,S2       access scopes, e.g. READ_SHEETS,WRITE_SHEETS (default: all)
  --expires-in-days D  days until the token expires (default: never)
`;

async function userAdd(args: string[]): Promise<void> {
  const { values } = parseCommand('user add', USER_USAGE, args, {
    email: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' },
    admin: { type: 'boolean' }, licensed: { type: 'boolean' }, 'password-stdin': { type: 'boolean' },
  });
  if (!values.email) fail('user add needs --email (see sheetd user add --help)');
  const password = values['password-stdin'] ? await readPassword() : null;
  if (password !== null && password.length < MIN_PASSWORD_LENGTH) fail(`the password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  await withStore(async (store, orgId, author) => {
    const u = await store.db.transaction().execute((tx) =>
      createUser(tx, author, orgId, {
        email: values.email!, firstName: values['first-name'] ?? null, lastName: values['last-name'] ?? null,
        admin: !!values.admin, licensedSheetCreator: !!values.licensed || !!values.admin,
      }),
    ).catch((e: unknown) => fail((apiErrorOf(e) ?? (e as { message?: string })).message ?? String(e)));
    if (password !== null) await setPassword(store, author, u.email, password).catch((e: unknown) => fail((apiErrorOf(e) ?? (e as { message?: string })).message ?? String(e)));
    process.stdout.write(`${u.id}\n`);
  });
}

async function tokenCreate(args: string[]): Promise<void> {
  const { values } = parseCommand('token create', TOKEN_USAGE, args, {
    email: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, 'expires-in-days': { type: 'string' },
  });
  if (!values.email) fail('token create needs --email (see sheetd token create --help)');
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
    expiresAt = clock.now() + d * 86_400_000;
  }
  await withStore(async (store, _orgId, author) => {
    const user = await findUserByEmail(store.db, values.email!);
    if (!user) fail(`no user with email ${values.email}`);
    const tok = await store.db.transaction().execute((tx) =>
      createToken(tx, author, user.id, { name: values.name ?? 'cli', scopes: scopes === 'ALL' ? 'ALL' : [...scopes], expiresAt }),
    );
    process.stdout.write(`${tok.raw}\n`);
  });
}

async function serve(opts: { testMode?: boolean; seed?: string | undefined } = {}): Promise<void> {
  const config = loadConfig();
  if (opts.testMode) config.testMode = true;
  if (opts.seed !== undefined) config.testSeedFile = opts.seed;
  if (config.testSeedFile !== undefined && !config.testMode) fail('--seed (SHEETD_TEST_SEED) needs test mode (--test-mode or SHEETD_TEST_MODE=true)');
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, { logger });
  logger.info(`sheetd serving the API at ${server.url}/2.0`);
  if (config.testMode) logger.warn('TEST MODE is on: anyone with the admin token can reset the database (docs/testing.md)');
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

/** A command group (`sheetd user`, `sheetd token`) answers --help itself and needs a known subcommand. */
function group(name: string, sub: string | undefined, usage: string, subs: Record<string, (args: string[]) => Promise<void>>, rest: string[]): Promise<void> {
  if (sub === '--help' || sub === '-h') {
    process.stdout.write(usage);
    return Promise.resolve();
  }
  const run = sub === undefined ? undefined : subs[sub];
  if (!run) fail(`${name}: ${sub === undefined ? 'a subcommand is needed' : `unknown subcommand ${JSON.stringify(sub)}`} (${Object.keys(subs).map((k) => `${name} ${k}`).join(', ')}; see sheetd ${name} --help)`);
  return run(rest);
}

export async function main(argv: string[]): Promise<void> {
  const [cmd, sub, ...rest] = argv;
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (cmd === undefined) return serve();
  if (cmd === 'serve') {
    const { values } = parseCommand('serve', SERVE_USAGE, argv.slice(1), { 'test-mode': { type: 'boolean' }, seed: { type: 'string' } });
    return serve({ testMode: !!values['test-mode'], seed: values.seed });
  }
  if (cmd === 'user') return group('user', sub, USER_USAGE, { add: userAdd, 'set-password': setPasswordCommand }, rest);
  if (cmd === 'app') return group('app', sub, APP_USAGE, appCommands, rest);
  if (cmd === 'token') return group('token', sub, TOKEN_USAGE, { create: tokenCreate }, rest);
  if (cmd === 'domain') return domainCommand(argv.slice(1));
  if (cmd === 'webhook') return webhookCommand(argv.slice(1));
  if (cmd === 'search') return searchCommand(argv.slice(1));
  if (cmd === 'import') return importCommand(argv.slice(1));
  if (cmd === 'export') return exportCommand(argv.slice(1));
  fail(`${cmd.startsWith('-') ? 'unknown option' : 'unknown command'} ${JSON.stringify(cmd)} (see sheetd --help)`);
}

await main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`sheetd: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
