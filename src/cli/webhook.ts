import { disableByOperator, restoreByOperator } from '../services/outbound/webhooks.ts';
import { fail, parseCommand, withStore } from './common.ts';

export const WEBHOOK_USAGE = `Usage: sheetd webhook disable ID
       sheetd webhook restore ID

disable: stops a webhook (status DISABLED_ADMINISTRATIVE); its owner cannot enable it again.
restore: gives a webhook disabled that way back to its owner (DISABLED_BY_OWNER), who may
         enable it with Update Webhook (which verifies its callback URL again).
`;

/** `sheetd webhook disable|restore ID`. Exit status 2 on bad use or an unknown webhook. */
export async function webhookCommand(argv: string[]): Promise<void> {
  const { positionals } = parseCommand('webhook', WEBHOOK_USAGE, argv, {}, true);
  const [sub, ...args] = positionals;
  if (sub !== 'disable' && sub !== 'restore') fail('webhook: disable or restore is needed (see sheetd webhook --help)');
  if (args.length !== 1 || !/^\d{1,16}$/.test(args[0]!)) fail(`webhook ${sub} needs one webhook ID (see sheetd webhook --help)`);
  const id = Number(args[0]);
  await withStore(async (store, orgId, author) => {
    const found = await store.db.transaction().execute((tx) => (sub === 'disable' ? disableByOperator : restoreByOperator)(tx, author, orgId, id));
    if (!found) fail(`no webhook ${id}`);
  });
}
