import type { Queryable } from '../../store/db.ts';

/**
 * Who owns a transaction: a service entry point called by a route takes the Store and opens
 * the one transaction of the request; the helpers it calls take that transaction (a Queryable).
 * An entry point is usually a thin wrapper over its helper:
 *
 *     export function renameFolder(store: Store, ...a: AfterDb<typeof renameFolderIn>) {
 *       return store.db.transaction().execute((tx) => renameFolderIn(tx, ...a));
 *     }
 *
 * AfterDb is the helper's parameters after its database handle.
 */
export type AfterDb<F> = F extends (db: Queryable, ...rest: infer A) => unknown ? A : never;
