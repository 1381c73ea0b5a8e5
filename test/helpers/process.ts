import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/sheetd.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A separate `sheetd serve` process (its own memory, its own caches) with the given environment. */
export async function spawnServer(env: Record<string, string>): Promise<{ base: string; proc: ChildProcess; close(): Promise<void> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, SHEETD_LOG_LEVEL: 'silent', ...env, PORT: String(port) }, stdio: 'ignore' });
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
    close: () => new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.on('exit', () => resolve());
      proc.kill('SIGTERM');
    }),
  };
}
