import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { chromium, type Browser } from 'playwright-core';

/**
 * The browser tests' chromium: Debian's (.ci/run installs it), or the binary SHEETD_CHROMIUM
 * names; undefined when there is none (the tests are then skipped).
 */
export const CHROMIUM = process.env.SHEETD_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));

/** A headless chromium driven by playwright-core (every launch has a new empty profile). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The first message of a server's outbox directory, parsed (waits for the mail job). */
export async function firstMail(dir: string): Promise<ParsedMail> {
  for (let i = 0; i < 300; i++) {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.eml')) : [];
    if (files.length > 0) return simpleParser(fs.readFileSync(path.join(dir, files[0]!)));
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('no message in the outbox');
}
