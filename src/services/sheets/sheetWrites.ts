import type { Queryable, Store, Tx } from '../../store/db.ts';
import { bumpSheetVersion, findSheet, lockSheetRow, type LockedSheet, type SheetRow } from '../../store/sheets.ts';
import { saveModel } from '../../store/sheetModels.ts';
import { Changeset, type SheetModel } from '../../engine/model.ts';
import { apiError } from '../../errors.ts';
import { apiErrorOf } from '../platform/errors.ts';
import type { AccessLevel } from '../access/access.ts';
import type { Actor } from '../platform/context.ts';
import { sheetFor } from '../access/permissions.ts';
import { authorOf, recordEvents, type ChangeEvent } from '../log/events.ts';
import { withRecomputed } from '../log/recomputed.ts';
import { forgetSheet, modelForWrite, remember } from './sheetCache.ts';
import { clock } from '../../clock.ts';

/**
 * Sheet writes: one transaction, the sheets locked, access checked, the `opened` steps, each
 * model changed by the mutation (engine/model.ts functions record what they change in the
 * write's changeset), the `written` steps, persisted as the changeset names, the version bumped
 * and the change events recorded; after the commit, the `committed` steps. The steps are the
 * store's WritePipeline (below), which server.ts composes (services/sheets/writeSteps.ts).
 */
export interface WriteContext {
  tx: Tx;
  actor: Actor;
  sheet: SheetRow;
  level: AccessLevel;
  model: SheetModel;
  now: number;
  /** What the write changed so far: persisted at its end, read by the steps (cell links, automation). */
  changes: Changeset;
  events: ChangeEvent[];
  /**
   * What the sheet's lock read with it (PostgreSQL): whether it has enabled automation rules and
   * whether webhooks watch it, so the write does not ask again. Undefined where nothing was read
   * (SQLite): then they are looked up.
   */
  watchers?: { rules: boolean; webhooks: boolean };
}

export interface WriteOptions {
  /** The lock wait before answering 4004 (PostgreSQL). */
  lockTimeoutMs?: number;
  /** A write the server allows on its own terms (a signed update request link): no access check. */
  system?: boolean;
}

export interface SheetWriteResult<T> {
  result: T;
  /** Whether the write changed the sheet (its version went up). */
  changed: boolean;
  version: number;
  model: SheetModel;
  sheet: SheetRow;
  level: AccessLevel;
  /** Whether other sheets read it (CommittedSheet.hasReaders). */
  hasReaders?: boolean;
}

/** One sheet taking part in a write: what access it needs. */
export interface SheetWriteTarget {
  sheetId: number;
  needed: AccessLevel;
  /** A write the server makes on its own (cross-sheet updates): no access check. */
  system?: boolean;
}

/** A step of every sheet write, run inside its transaction for each sheet it writes. */
export type WriteStep = (ctx: WriteContext) => Promise<void>;

/** A sheet as a write committed it. */
export interface CommittedSheet {
  sheet: SheetRow;
  model: SheetModel;
  /** Whether the write changed the sheet (its version went up). */
  changed: boolean;
  /**
   * Whether other sheets read it (cross-sheet references, cell links from it), as the statement
   * of its new version read (PostgreSQL); undefined when not read.
   */
  hasReaders?: boolean;
}

/** A step after a write's commit; writes it makes (following dependent sheets) run the same pipeline. */
export type CommitStep = (store: SheetStore, actor: Actor, sheets: readonly CommittedSheet[]) => Promise<void>;

/**
 * What every sheet write does besides its own mutation, in order. No module adds to it: it is
 * built once where a server is composed (server.ts, from services/sheets/writeSteps.ts) and
 * reaches the services with the store (SheetStore), so a test can build one with or without a step.
 */
export interface WritePipeline {
  /** Inside the transaction, each sheet locked, its access checked and its model taken: before the mutation. */
  readonly opened: readonly WriteStep[];
  /** After the mutation, before what it changed is saved (what a step changes is saved with it). */
  readonly written: readonly WriteStep[];
  /** After the commit. */
  readonly committed: readonly CommitStep[];
}

/** The store as the services that write sheets get it: the database and the write pipeline. */
export interface SheetStore extends Store {
  readonly writes: WritePipeline;
}

/**
 * PostgreSQL: takes the sheets' row locks (4004 after the lock timeout), so that a check made
 * after it ("this row has no proof yet") holds until the commit. SQLite: the write transaction is the lock.
 */
export async function lockSheets(tx: Tx, store: Store, sheetIds: number[], opts: WriteOptions = {}): Promise<Map<number, LockedSheet>> {
  const locked = new Map<number, LockedSheet>();
  if (store.dialect !== 'postgres') return locked; // SQLite: the write transaction is the lock
  // the first lock's statement sets the transaction's lock timeout (lockSheetRow)
  let timeout: number | undefined = opts.lockTimeoutMs ?? store.lockTimeoutMs;
  // ascending ids: two writers over the same sheets never wait on each other in a circle
  for (const id of [...new Set(sheetIds)].sort((a, b) => a - b)) {
    try {
      const sheet = await lockSheetRow(tx, id, timeout);
      timeout = undefined;
      if (sheet !== undefined) locked.set(id, sheet);
    } catch (e) {
      if ((e as { code?: string }).code === '55P03') throw apiError(4004, id);
      throw e;
    }
  }
  return locked;
}

/** `locked`: the sheet as its lock read it (PostgreSQL), so that it is not read again. */
async function openWrite(tx: Tx, actor: Actor, target: SheetWriteTarget, now: number, locked: LockedSheet | undefined): Promise<WriteContext> {
  const { sheet, level } = target.system
    ? { sheet: locked?.sheet ?? (await systemSheet(tx, target.sheetId)), level: 'OWNER' as AccessLevel }
    : await sheetFor(tx, actor, target.sheetId, target.needed, locked?.sheet);
  // the model as stored (not one a reader computed values into): what this write saves is
  // what it changes and computes itself
  const model = await modelForWrite(tx, sheet);
  // from here the model is ours: readers of this process reload from the database
  forgetSheet(target.sheetId);
  const ctx: WriteContext = { tx, actor, sheet, level, model, now, changes: new Changeset(), events: [] };
  if (locked !== undefined) ctx.watchers = { rules: locked.ruled, webhooks: locked.watched };
  return ctx;
}

/** Persists what a write context changed, bumps the version and records its events. */
async function closeWrite(ctx: WriteContext): Promise<{ version: number; sheet: SheetRow; hasReaders: boolean | undefined }> {
  const { tx, sheet, model, changes } = ctx;
  const changed = !changes.empty;
  let version = sheet.version;
  let hasReaders: boolean | undefined;
  if (changed) await saveModel(tx, model, changes, ctx.now);
  if (ctx.events.length > 0) {
    // rows whose values changed with the write and that no event names (formula results): noted for the change stream
    const events = withRecomputed(ctx.events, changes);
    await recordEvents(tx, authorOf(ctx.actor), events.map((e) => ({ ...e, sheetId: sheet.id, workspaceId: sheet.workspace_id })), ctx.now, ctx.watchers?.webhooks);
  }
  // last: on PostgreSQL the version's statement carries those the write held (its rows'
  // updates, their cell history, its events; store/db.ts `carrying`), one round trip for all
  if (changed) {
    version = sheet.version + 1;
    hasReaders = await bumpSheetVersion(tx, sheet.id, version, ctx.now);
    model.version = version;
  }
  return { version, sheet: { ...sheet, version, modified_at: changed ? ctx.now : sheet.modified_at }, hasReaders };
}

/**
 * Runs one mutation over several sheets in one transaction (copy or move rows between
 * sheets, cross-sheet updates): every sheet locked (in id order), access checked in the order
 * given, each model changed by `fn`, persisted and versioned as with writeSheet.
 */
export async function writeSheets<T>(
  store: SheetStore,
  actor: Actor,
  targets: SheetWriteTarget[],
  fn: (ctxs: WriteContext[]) => T | Promise<T>,
  opts: WriteOptions = {},
): Promise<{ result: T; sheets: Array<Omit<SheetWriteResult<T>, 'result'>> }> {
  const ids = targets.map((t) => t.sheetId);
  let committed: SheetModel[] = [];
  try {
    const out = await store.db.transaction().execute(async (tx) => {
      const locked = await lockSheets(tx, store, ids, opts);
      const now = clock.now();
      const ctxs: WriteContext[] = [];
      for (const t of targets) ctxs.push(await openWrite(tx, actor, t, now, locked.get(t.sheetId)));
      for (const ctx of ctxs) for (const step of store.writes.opened) await step(ctx);
      const result = await fn(ctxs);
      for (const ctx of ctxs) for (const step of store.writes.written) await step(ctx);
      const sheets: Array<Omit<SheetWriteResult<T>, 'result'>> = [];
      for (const ctx of ctxs) {
        const { version, sheet, hasReaders } = await closeWrite(ctx);
        sheets.push({ version, sheet, model: ctx.model, level: ctx.level, changed: version !== ctx.sheet.version, ...(hasReaders === undefined ? {} : { hasReaders }) });
      }
      committed = ctxs.map((c) => c.model);
      return { result, sheets };
    });
    // back in the cache, now what the database holds (not if a reader that held one computed into it meanwhile)
    for (const m of committed) remember(m);
    for (const step of store.writes.committed) await step(store, actor, out.sheets);
    return out;
  } catch (e) {
    for (const id of ids) forgetSheet(id);
    if (apiErrorOf(e) === undefined && (e as { code?: string }).code === 'SQLITE_BUSY') throw apiError(4004, ids[0]);
    throw e;
  }
}

/**
 * Runs one sheet mutation: transaction, lock, access check, model, persistence of what changed,
 * version bump, change events. `fn` changes ctx.model through the engine's model functions,
 * which record the changes in ctx.changes.
 */
export async function writeSheet<T>(
  store: SheetStore,
  actor: Actor,
  sheetId: number,
  needed: AccessLevel,
  fn: (ctx: WriteContext) => T | Promise<T>,
  opts: WriteOptions = {},
): Promise<SheetWriteResult<T>> {
  const { result, sheets } = await writeSheets(store, actor, [{ sheetId, needed, ...(opts.system ? { system: true } : {}) }], (ctxs) => fn(ctxs[0]!), opts);
  return { result, ...sheets[0]! };
}

async function systemSheet(db: Queryable, sheetId: number): Promise<SheetRow> {
  const sheet = await findSheet(db, sheetId);
  if (!sheet) throw apiError(1006);
  return sheet;
}

