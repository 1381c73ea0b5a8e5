import fsp from 'node:fs/promises';
import path from 'node:path';

/** One message of the outbox (<dataDir>/outbox/*.eml), as test mode shows it. */
export interface OutboxMessage {
  id: string;
  date: string | null;
  from: string | null;
  to: string[];
  cc: string[];
  subject: string | null;
  text: string | null;
  html: string | null;
}

function addresses(a: unknown): string[] {
  const list = Array.isArray(a) ? a : a ? [a] : [];
  return list.flatMap((x: { value?: Array<{ address?: string }> }) => (x.value ?? []).map((v) => v.address ?? '')).filter(Boolean);
}

/** The outbox's messages, oldest first (file names start with the UTC time). */
export async function readOutbox(dataDir: string): Promise<OutboxMessage[]> {
  const dir = path.join(dataDir, 'outbox');
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).filter((n) => n.endsWith('.eml') && !n.startsWith('.')).sort();
  } catch {
    return [];
  }
  const out: OutboxMessage[] = [];
  // loaded on first use (test mode's outbox reader only)
  const { simpleParser } = await import('mailparser');
  for (const n of names) {
    const m = await simpleParser(await fsp.readFile(path.join(dir, n)));
    out.push({
      id: n.slice(0, -4),
      date: m.date ? m.date.toISOString() : null,
      from: addresses(m.from)[0] ?? null,
      to: addresses(m.to),
      cc: addresses(m.cc),
      subject: m.subject ?? null,
      text: m.text ?? null,
      html: typeof m.html === 'string' ? m.html : null,
    });
  }
  return out;
}

/** Empties the outbox (test mode's reset). */
export async function clearOutbox(dataDir: string): Promise<void> {
  await fsp.rm(path.join(dataDir, 'outbox'), { recursive: true, force: true });
}
