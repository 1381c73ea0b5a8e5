import fs from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import { apiError } from '../../errors.ts';
import { advanceClock, clock, clockState, resetClock, setClock, type ClockState } from '../../clock.ts';
import { retryingDeadlocks, type Store } from '../../store/db.ts';
import { dumpTables, restoreTables, type TableDump } from '../../store/testmode.ts';
import { listAllDeliveries, type DeliveryLogRow } from '../../store/webhooks.ts';
import { clearOutbox, readOutbox, type OutboxMessage } from '../../mail/outbox.ts';
import { forgetAllSheets } from '../sheets/sheetCache.ts';
import { catchUpSearchIndex, requestSearchRebuild } from '../log/searchIndex.ts';
import { bodyBool } from '../../engine/input.ts';

/**
 * Test mode (docs/testing.md): state for integration tests of clients. Only server.ts creates
 * one, and only when the operator enabled test mode (SHEETD_TEST_MODE / --test-mode); without
 * it the controls are not even routed. Faults, the journal and snapshots live in this process's
 * memory; the database holds everything else, so reset and restore replace its rows.
 */
export interface Fault {
  id: number;
  method: string;
  path: string;
  status: number | null;
  errorCode: number | null;
  retryAfter: number | null;
  latencyMs: number;
  /** Requests still to be hit. */
  remaining: number;
  createdAt: number;
}

export interface JournalEntry {
  id: number;
  time: number;
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body: string | null;
  bodyTruncated: boolean;
  status: number;
  errorCode: number | null;
  durationMs: number;
}

/** Bodies kept in the journal are cut at this many characters. */
export const JOURNAL_BODY_CAP = 64 * 1024;
/** The journal keeps this many requests; older ones go first. */
export const JOURNAL_MAX = 10_000;

export class TestMode {
  faults: Fault[] = [];
  journal: JournalEntry[] = [];
  private nextId = 1;
  baseline: TableDump | null = null;
  /** The ids of the fixture loaded at start (`serve --seed`), by its keys. */
  seeded: Record<string, unknown> | null = null;
  /** Runs the jobs that are due now and resolves when they have run (set by server.ts). */
  runDue: () => Promise<void> = async () => {};
  /** In-memory state besides the sheet models to forget on reset and restore (rate-limit state). */
  readonly onReset: Array<() => void | Promise<void>> = [];

  constructor(readonly store: Store, readonly dataDir: string) {}

  /** The state right after bootstrap: what reset goes back to. */
  async takeBaseline(): Promise<void> {
    this.baseline = await dumpTables(this.store);
  }

  nextSerial(): number {
    return this.nextId++;
  }

  async forgetMemory(): Promise<void> {
    // the search index is derived data (SQLite's FTS table is not in the dump): built again now
    await retryingDeadlocks(async () => {
      await requestSearchRebuild(this.store);
      await catchUpSearchIndex(this.store);
    });
    forgetAllSheets();
    for (const f of this.onReset) await f();
  }
}

// ---- reset and snapshots --------------------------------------------------------------------

/** Back to the freshly bootstrapped organization (same admin token); clock, faults, journal and outbox too. */
export async function resetAll(tm: TestMode): Promise<void> {
  if (tm.baseline === null) throw new Error('test mode has no baseline');
  await restoreTables(tm.store, tm.baseline);
  tm.faults = [];
  tm.journal = [];
  resetClock();
  await clearOutbox(tm.dataDir);
  await tm.forgetMemory();
}

const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function snapshotName(v: unknown): string {
  if (v === undefined || v === null || v === '') throw apiError(1012, 'name');
  if (typeof v !== 'string' || !SNAPSHOT_NAME.test(v)) throw apiError(1031, JSON.stringify(v), 'name');
  return v;
}

/** Runs `load` (a seed); when it fails, the database is put back as it was before. */
export async function atomically<T>(tm: TestMode, load: () => Promise<T>): Promise<T> {
  const before = await dumpTables(tm.store);
  try {
    return await load();
  } catch (e) {
    await restoreTables(tm.store, before);
    await tm.forgetMemory();
    throw e;
  }
}

/**
 * Snapshots are files under <data dir>/test-snapshots/ (the rows of every table, v8-serialized),
 * so they outlive the server: a later start on the same data directory restores them. Blob files
 * are never deleted in test mode (server.ts), so what a snapshot refers to is still there.
 */
function snapshotDir(tm: TestMode): string {
  return path.join(tm.dataDir, 'test-snapshots');
}

function snapshotFile(tm: TestMode, name: string): string {
  return path.join(snapshotDir(tm), `${name}.snapshot`);
}

export async function saveSnapshot(tm: TestMode, body: unknown): Promise<{ name: string; createdAt: number }> {
  const name = snapshotName(objectBody(body).name);
  const createdAt = clock.now();
  const bytes = v8.serialize({ createdAt, dump: await dumpTables(tm.store) });
  await fs.mkdir(snapshotDir(tm), { recursive: true, mode: 0o700 });
  // written aside, then renamed: a snapshot file is whole or absent
  const file = snapshotFile(tm, name);
  await fs.writeFile(`${file}.tmp`, bytes, { mode: 0o600 });
  await fs.rename(`${file}.tmp`, file);
  return { name, createdAt };
}

async function readSnapshot(tm: TestMode, rawName: string): Promise<{ createdAt: number; dump: TableDump }> {
  if (!SNAPSHOT_NAME.test(rawName)) throw apiError(1006);
  try {
    return v8.deserialize(await fs.readFile(snapshotFile(tm, rawName))) as { createdAt: number; dump: TableDump };
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') throw apiError(1006);
    throw e;
  }
}

export async function restoreSnapshot(tm: TestMode, rawName: string): Promise<void> {
  const s = await readSnapshot(tm, rawName);
  await restoreTables(tm.store, s.dump);
  await tm.forgetMemory();
}

export async function listSnapshots(tm: TestMode): Promise<Array<{ name: string; createdAt: number }>> {
  let files: string[];
  try {
    files = await fs.readdir(snapshotDir(tm));
  } catch {
    return [];
  }
  const out: Array<{ name: string; createdAt: number }> = [];
  for (const f of files.filter((x) => x.endsWith('.snapshot')).sort()) {
    const name = f.slice(0, -'.snapshot'.length);
    out.push({ name, createdAt: (await readSnapshot(tm, name)).createdAt });
  }
  return out;
}

export async function deleteSnapshot(tm: TestMode, rawName: string): Promise<void> {
  if (!SNAPSHOT_NAME.test(rawName)) throw apiError(1006);
  try {
    await fs.unlink(snapshotFile(tm, rawName));
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') throw apiError(1006);
    throw e;
  }
}

// ---- clock ------------------------------------------------------------------------------------

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw apiError(1008, 'expected a JSON object');
  return body as Record<string, unknown>;
}

function timeValue(v: unknown, attr: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string') {
    const t = Date.parse(v);
    if (/^\d{4}-\d\d-\d\dT/.test(v) && Number.isFinite(t)) return t;
  }
  throw apiError(1031, JSON.stringify(v), attr);
}

export function readClock(): ClockState {
  return clockState();
}

/**
 * {"now": ISO or epoch ms, "frozen": bool (default false: time runs on from `now`)}; {"real": true}
 * gives back the real time. Frozen, work scheduled even a moment ahead (webhook batching) waits
 * for an advance.
 */
export function changeClock(body: unknown): ClockState {
  const b = objectBody(body);
  for (const k of Object.keys(b)) if (!['now', 'frozen', 'real'].includes(k)) throw apiError(1032, k);
  if (b.real !== undefined) {
    if (b.real !== true) throw apiError(1031, JSON.stringify(b.real), 'real');
    if (b.now !== undefined || b.frozen !== undefined) throw apiError(1032, 'now, frozen');
    resetClock();
    return clockState();
  }
  if (b.now === undefined) throw apiError(1012, 'now');
  const at = timeValue(b.now, 'now');
  if (b.frozen !== undefined) bodyBool(b.frozen, 'frozen');
  setClock(at, b.frozen === true);
  return clockState();
}

const DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

function durationMs(v: unknown, attr: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string') {
    const m = DURATION.exec(v);
    if (m && v !== 'P' && !v.endsWith('T')) {
      return Number(m[1] ?? 0) * 86_400_000 + Number(m[2] ?? 0) * 3_600_000 + Number(m[3] ?? 0) * 60_000 + Math.round(Number(m[4] ?? 0) * 1000);
    }
  }
  throw apiError(1031, JSON.stringify(v), attr);
}

/**
 * {"ms": N} or {"by": "PT1H"} (ISO 8601 duration: days, hours, minutes, seconds): moves the
 * clock forward, then runs the jobs that came due and answers when they have run.
 */
export async function advance(tm: TestMode, body: unknown): Promise<ClockState> {
  const b = objectBody(body);
  for (const k of Object.keys(b)) if (!['ms', 'by'].includes(k)) throw apiError(1032, k);
  if ((b.ms === undefined) === (b.by === undefined)) throw apiError(1012, 'ms or by');
  const ms = b.ms !== undefined ? durationMs(b.ms, 'ms') : durationMs(b.by, 'by');
  advanceClock(ms);
  await tm.runDue();
  return clockState();
}

// ---- faults -----------------------------------------------------------------------------------

const FAULT_CODES: Record<number, number> = { 429: 4003, 500: 4000, 503: 4001 };
const METHODS = ['*', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

function intInRange(v: unknown, attr: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw apiError(1031, JSON.stringify(v), attr);
  return v;
}

/**
 * {"method": "GET"|"*", "path": "/sheets/*", "count": 1, "status": 429, "errorCode": 4003,
 * "retryAfter": 2, "latencyMs": 0}: the next `count` API requests matching answer the error (or
 * only wait latencyMs, when neither status nor errorCode is given).
 */
export function addFault(tm: TestMode, body: unknown, catalogue: (code: number) => number | undefined): Fault {
  const b = objectBody(body);
  for (const k of Object.keys(b)) if (!['method', 'path', 'count', 'status', 'errorCode', 'retryAfter', 'latencyMs'].includes(k)) throw apiError(1032, k);
  const method = b.method === undefined ? '*' : typeof b.method === 'string' ? b.method.toUpperCase() : '';
  if (!METHODS.includes(method)) throw apiError(1031, JSON.stringify(b.method), 'method');
  if (b.path === undefined) throw apiError(1012, 'path');
  if (typeof b.path !== 'string' || !b.path.startsWith('/') || b.path.length > 500) throw apiError(1031, JSON.stringify(b.path), 'path');
  const count = b.count === undefined ? 1 : intInRange(b.count, 'count', 1, 1_000_000);
  const latencyMs = b.latencyMs === undefined ? 0 : intInRange(b.latencyMs, 'latencyMs', 0, 60_000);
  let status = b.status === undefined ? null : intInRange(b.status, 'status', 400, 599);
  let errorCode = b.errorCode === undefined ? null : intInRange(b.errorCode, 'errorCode', 1000, 9999);
  if (errorCode !== null) {
    const s = catalogue(errorCode);
    if (s === undefined) throw apiError(1031, String(errorCode), 'errorCode');
    status ??= s;
  } else if (status !== null) {
    errorCode = FAULT_CODES[status] ?? (status >= 500 ? 4000 : null);
    if (errorCode === null) throw apiError(1012, 'errorCode');
  }
  if (status === null && latencyMs === 0) throw apiError(1012, 'status, errorCode or latencyMs');
  const retryAfter = b.retryAfter === undefined ? (status === 429 ? 1 : null) : intInRange(b.retryAfter, 'retryAfter', 0, 86_400);
  const f: Fault = { id: tm.nextSerial(), method, path: b.path, status, errorCode, retryAfter, latencyMs, remaining: count, createdAt: clock.now() };
  tm.faults.push(f);
  return f;
}

function globToRegExp(glob: string): RegExp {
  const re = glob.split(/(\*\*|\*)/).map((p) => (p === '**' ? '.*' : p === '*' ? '[^/]*' : p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${re}$`);
}

/** The first fault matching the request (path without /2.0 and query), counted down; null if none. */
export function takeFault(tm: TestMode, method: string, path: string): Fault | null {
  const f = tm.faults.find((x) => x.remaining > 0 && (x.method === '*' || x.method === method) && globToRegExp(x.path).test(path));
  if (f === undefined) return null;
  f.remaining -= 1;
  if (f.remaining === 0) tm.faults = tm.faults.filter((x) => x !== f);
  return f;
}

export function deleteFault(tm: TestMode, id: number): void {
  const before = tm.faults.length;
  tm.faults = tm.faults.filter((f) => f.id !== id);
  if (tm.faults.length === before) throw apiError(1006);
}

// ---- journal, outbox, webhook deliveries ------------------------------------------------------

export function record(tm: TestMode, e: Omit<JournalEntry, 'id'>): void {
  tm.journal.push({ id: tm.nextSerial(), ...e });
  if (tm.journal.length > JOURNAL_MAX) tm.journal.splice(0, tm.journal.length - JOURNAL_MAX);
}

export interface JournalFilter {
  method?: string;
  /** glob like fault paths */
  path?: string;
  status?: number;
  since?: number;
}

export function readJournal(tm: TestMode, f: JournalFilter): JournalEntry[] {
  const re = f.path === undefined ? null : globToRegExp(f.path);
  return tm.journal.filter((e) =>
    (f.method === undefined || e.method === f.method.toUpperCase())
    && (re === null || re.test(e.path))
    && (f.status === undefined || e.status === f.status)
    && (f.since === undefined || e.time >= f.since));
}

export function clearJournal(tm: TestMode): void {
  tm.journal = [];
}

export function outbox(tm: TestMode): Promise<OutboxMessage[]> {
  return readOutbox(tm.dataDir);
}

export function webhookDeliveries(tm: TestMode, webhookId?: number): Promise<DeliveryLogRow[]> {
  return listAllDeliveries(tm.store.db, webhookId);
}

