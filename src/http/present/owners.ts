import type { ReadOptions } from '../../services/platform/context.ts';

/** Owners' addresses by user id, read at once for a list (services/identity/users.ts ownerEmails). */
export type OwnerEmails = ReadonlyMap<number, string>;

/**
 * include=ownerInfo: the owner's user id (`ownerId`) and address (`owner`), as the reference's
 * Sheet has them; the address when the list's owners were read.
 */
export function addOwnerInfo(out: Record<string, unknown>, ownerId: number, ro: ReadOptions, owners: OwnerEmails | undefined): void {
  if (!ro.include.has('ownerInfo')) return;
  const email = owners?.get(ownerId);
  if (email !== undefined) out.owner = email;
  out.ownerId = ownerId;
}
