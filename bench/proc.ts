import fs from 'node:fs';

/** Readings of a child process from /proc (Linux): what the benches print of a server they started. */

/** Resident memory (VmRSS) of a process, in KB. */
export function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

/** /proc's clock ticks are 1/100 s on Linux (USER_HZ). */
export const TICK_MS = 1000 / 100;

/** CPU time (user + system) of a process so far, in ms. */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
