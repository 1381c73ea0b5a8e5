import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/sheetd.js');

/**
 * A free port for a process started afterwards (n > 0: the first of n + 1 consecutive free
 * ports), below the kernel's ephemeral range: a port of that range, free when looked at, can be
 * taken a moment later as the local end of any outgoing connection (to PostgreSQL, to Redis),
 * and the process starting there then fails with EADDRINUSE.
 */
export async function freePort(n = 0): Promise<number> {
  const [low] = ephemeralRange();
  const from = 10_000;
  const to = Math.max(from + 1000, low) - n - 1;
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = from + Math.floor(Math.random() * (to - from));
    let ok = true;
    for (let i = 0; i <= n && ok; i++) ok = await isFree(p + i);
    if (ok) return p;
  }
  throw new Error(`no ${n + 1} consecutive free ports below ${low}`);
}

function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(lo) && Number.isInteger(hi)) return [lo!, hi!];
  } catch {
    // not Linux: the IANA dynamic range
  }
  return [49152, 65535];
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A separate `sheetd serve` process (its own memory, its own caches) with the given environment.
 * With `keepLog`, what it writes to stdout (its log) is kept: `log()` returns it so far.
 */
export async function spawnServer(
  env: Record<string, string>, opts: { keepLog?: boolean } = {},
): Promise<{ base: string; proc: ChildProcess; log(): string; close(): Promise<void> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, SHEETD_LOG_LEVEL: 'silent', ...env, PORT: String(port) },
    stdio: ['ignore', opts.keepLog ? 'pipe' : 'ignore', 'ignore'],
  });
  let logged = '';
  proc.stdout?.on('data', (c: Buffer) => (logged += c.toString('utf8')));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (true) {
    const ok = await fetch(url + '/health').then((r) => r.status === 200, () => false);
    if (ok) break;
    if (Date.now() > deadline || proc.exitCode !== null) {
      // a process that is still starting would keep the test file from ever ending
      if (proc.exitCode === null) proc.kill('SIGKILL');
      throw new Error('sheetd process did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base: url + '/2.0',
    proc,
    log: () => logged,
    close: () => new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.on('exit', () => resolve());
      proc.kill('SIGTERM');
    }),
  };
}
