import { createApp, regenerateSecret, findAppForCli } from '../services/identity/oauth.ts';
import { setPassword } from '../services/identity/sessions.ts';
import { fail, parseCommand, withStore } from './common.ts';

export const APP_USAGE = `Usage: sheetd app create --name N --redirect-url U [--description D] [--launch-url L] [--contact C] [--json]
       sheetd app regenerate-secret --client-id C [--json]

Registers an OAuth 2.0 app, or gives it a new client secret (the old one stops working), and
prints its client id and client secret. The secret is shown only here, once.
  --name N           the app's name, shown on the consent page (required)
  --redirect-url U   where users are sent back with the authorization code (required)
  --description D    what the app does
  --launch-url L     the app's address
  --contact C        contact or support information
  --json             print {"clientId":...,"clientSecret":...} as one JSON object
`;

export const SET_PASSWORD_USAGE = `Usage: sheetd user set-password --email E

Sets the password a user signs in to sheetd's pages with, read from standard input (one line).
Every sign-in of that user ends.
`;

/** The password on standard input: everything up to the first line break. */
export async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.split(/\r?\n/)[0] ?? '';
}

export async function setPasswordCommand(args: string[]): Promise<void> {
  const { values } = parseCommand('user set-password', SET_PASSWORD_USAGE, args, { email: { type: 'string' } });
  if (!values.email) fail('user set-password needs --email (see sheetd user set-password --help)');
  const password = await readPassword();
  await withStore(async (store, _orgId, author) => {
    await setPassword(store, author, values.email!, password).catch((e: { errorCode?: number; message?: string }) =>
      fail(e.errorCode === 1006 ? `no user with email ${values.email}` : e.message ?? String(e)));
  });
}

function print(json: boolean, app: { client_id: string; name: string }, secret: string): void {
  if (json) process.stdout.write(`${JSON.stringify({ clientId: app.client_id, clientSecret: secret, name: app.name })}\n`);
  else process.stdout.write(`clientId: ${app.client_id}\nclientSecret: ${secret}\n`);
}

async function appCreate(args: string[]): Promise<void> {
  const { values } = parseCommand('app create', APP_USAGE, args, {
    name: { type: 'string' }, 'redirect-url': { type: 'string' }, description: { type: 'string' },
    'launch-url': { type: 'string' }, contact: { type: 'string' }, json: { type: 'boolean' },
  });
  if (!values.name) fail('app create needs --name (see sheetd app --help)');
  if (!values['redirect-url']) fail('app create needs --redirect-url (see sheetd app --help)');
  await withStore(async (store, _orgId, author) => {
    const made = await createApp(store, author, null, {
      name: values.name, redirectUrl: values['redirect-url'], description: values.description, launchUrl: values['launch-url'], contact: values.contact,
    }).catch((e: { message?: string }) => fail(e.message ?? String(e)));
    print(!!values.json, made.app, made.clientSecret);
  });
}

async function appRegenerate(args: string[]): Promise<void> {
  const { values } = parseCommand('app regenerate-secret', APP_USAGE, args, { 'client-id': { type: 'string' }, json: { type: 'boolean' } });
  if (!values['client-id']) fail('app regenerate-secret needs --client-id (see sheetd app --help)');
  await withStore(async (store, _orgId, author) => {
    const app = await findAppForCli(store.db, values['client-id']!);
    if (!app) fail(`no app with client id ${values['client-id']}`);
    const made = await regenerateSecret(store, author, null, app.id);
    print(!!values.json, made.app, made.clientSecret);
  });
}

export const appCommands = { create: appCreate, 'regenerate-secret': appRegenerate };
