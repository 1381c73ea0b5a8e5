/**
 * A one-line progress bar for long commands (import, export), redrawn in place with `\r`. It
 * draws only on a terminal: piped or redirected output (scripts, logs, tests) gets nothing.
 * Plain ANSI rather than a library: one line, no colours, nothing else to keep up to date.
 */
export interface Progress {
  update(label: string, done: number, total?: number): void;
  /** Clears the line (the command's own output follows on a clean line). */
  done(): void;
}

interface Out {
  isTTY?: boolean;
  columns?: number;
  write(s: string): unknown;
}

const WIDTH = 20;
const EVERY_MS = 80;

export function progressBar(out: Out = process.stderr, now: () => number = Date.now): Progress {
  if (!out.isTTY) return { update() {}, done() {} };
  let last = -Infinity;
  let drawn = false;
  return {
    update(label, done, total) {
      const t = now();
      // redraw at most every EVERY_MS, and always at the end
      if (t - last < EVERY_MS && !(total !== undefined && done >= total)) return;
      last = t;
      let line: string;
      if (total !== undefined && total > 0) {
        const share = Math.min(1, done / total);
        const filled = Math.round(share * WIDTH);
        line = `${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
      } else {
        line = `${label} ${done.toLocaleString('en-US')}`;
      }
      const max = (out.columns ?? 80) - 1;
      out.write(`\r${line.slice(0, max)}\x1b[K`);
      drawn = true;
    },
    done() {
      if (drawn) out.write('\r\x1b[K');
      drawn = false;
    },
  };
}
