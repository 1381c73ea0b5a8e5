import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import { createPgDatabase, TEST_PG_URL } from '../helpers/server.ts';
import { freePort } from '../helpers/process.ts';

// The `sheetd` command as operators run it: a separate process, configured by environment.
const BIN = path.resolve(import.meta.dirname, '../../bin/sheetd.js');

interface Env { [k: string]: string }

function run(args: string[], env: Env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

async function waitFor(url: string, opts: { insecure?: boolean } = {}): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const ok = await get(url, {}, opts).then((r) => r.status === 200, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server at ${url} did not come up`);
}

function get(url: string, headers: Record<string, string>, opts: { insecure?: boolean } = {}): Promise<{ status: number; body: string }> {
  if (url.startsWith('https:')) {
    return new Promise((resolve, reject) => {
      https.get(url, { headers, rejectUnauthorized: !opts.insecure }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      }).on('error', reject);
    });
  }
  return fetch(url, { headers }).then(async (r) => ({ status: r.status, body: await r.text() }));
}

describe('sheetd command', () => {
  let dataDir: string;
  let env: Env;
  let dropDb: (() => Promise<void>) | null = null;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-cli-'));
    env = { SHEETD_DATA_DIR: dataDir, SHEETD_ADMIN_EMAIL: 'Boss@Example.com', SHEETD_LOG_LEVEL: 'info' };
    if (TEST_PG_URL) {
      const db = await createPgDatabase(TEST_PG_URL);
      env.DATABASE_URL = db.url;
      dropDb = db.drop;
    }
  });
  after(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (dropDb) await dropDb();
  });

  test('--help lists the commands', async () => {
    const r = await run(['--help'], env);
    assert.equal(r.code, 0);
    for (const w of ['serve', 'user add', 'token create']) assert.ok(r.stdout.includes(w), w);
  });

  test('every command answers --help with its usage (exit 0); unknown options, commands and stray arguments are one line on stderr, exit 2', async () => {
    const helps: Array<[string[], string]> = [
      [['serve', '--help'], 'sheetd serve'],
      [['user', '--help'], 'sheetd user add'],
      [['user', 'add', '--help'], 'sheetd user add'],
      [['user', 'add', '-h'], 'sheetd user add'],
      [['token', '--help'], 'sheetd token create'],
      [['token', 'create', '--help'], 'sheetd token create'],
      [['domain', '--help'], 'sheetd domain add'],
      [['domain', 'remove', '--help'], 'sheetd domain remove'],
      [['search', '--help'], 'sheetd search rebuild'],
      [['help'], 'sheetd token create'],
    ];
    for (const [args, usage] of helps) {
      const r = await run(args, env);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(r.stdout.includes(usage), `${args.join(' ')}: ${r.stdout}`);
      assert.equal(r.stderr, '');
    }
    const bad: Array<[string[], RegExp]> = [
      [['token', 'create', '--frob'], /--frob/],
      [['token', 'create', '--email'], /--email/],
      [['user', 'add', '--email', 'x@example.com', 'extra'], /extra/],
      [['serve', '--port', '80'], /--port/],
      [['user'], /subcommand/],
      [['token', 'revoke'], /revoke/],
      [['domain', 'frob'], /add, list or remove/],
      [['search', 'frob'], /rebuild/],
      [['frob'], /frob/],
      [['--frob'], /--frob/],
    ];
    for (const [args, what] of bad) {
      const r = await run(args, env);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^sheetd: [^\n]+\n$/, `${args.join(' ')}: one line, got ${JSON.stringify(r.stderr)}`);
      assert.match(r.stderr, what);
    }
  });

  test('serve: first start bootstraps the admin and its token file (0600), logs the path not the token; later starts keep both; SIGTERM closes cleanly', async () => {
    const port = await freePort();
    const proc = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let logs = '';
    proc.stdout.on('data', (c: Buffer) => (logs += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (logs += c.toString()));
    await waitFor(`http://127.0.0.1:${port}/health`);
    const tokenFile = path.join(dataDir, 'admin-token');
    const st = fs.statSync(tokenFile);
    assert.equal(st.mode & 0o777, 0o600);
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    assert.ok(token.length >= 26);
    assert.ok(logs.includes(tokenFile), 'the token file path is printed');
    assert.ok(!logs.includes(token), 'the token never reaches the logs');
    const me = await get(`http://127.0.0.1:${port}/2.0/users/me`, { authorization: `Bearer ${token}` });
    assert.equal(me.status, 200);
    assert.equal(JSON.parse(me.body).email, 'boss@example.com');
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    assert.equal(await exited, 0);

    // second start: same token still works, the file is unchanged
    const port2 = await freePort();
    const proc2 = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env, PORT: String(port2) }, stdio: 'ignore' });
    await waitFor(`http://127.0.0.1:${port2}/health`);
    assert.equal(fs.readFileSync(tokenFile, 'utf8').trim(), token);
    assert.equal((await get(`http://127.0.0.1:${port2}/2.0/users/me`, { authorization: `Bearer ${token}` })).status, 200);
    const exited2 = new Promise<number | null>((resolve) => proc2.on('exit', (code) => resolve(code)));
    proc2.kill('SIGTERM');
    assert.equal(await exited2, 0);
  });

  test('serve: a new data directory is 0700 and its files 0600 whatever the umask; a looser existing one is warned about, its database files tightened', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-modes-'));
    const dir = path.join(root, 'nested', 'data');
    // on PostgreSQL a database of its own, so that this data directory gets the bootstrap's token file
    const pgDb = TEST_PG_URL ? await createPgDatabase(TEST_PG_URL) : null;
    const denv = { ...env, SHEETD_DATA_DIR: dir, ...(pgDb ? { DATABASE_URL: pgDb.url } : {}) };
    const procs: ChildProcess[] = [];
    // a permissive umask, so that only sheetd's own modes protect the files
    const start = async () => {
      const port = await freePort();
      const proc = spawn('sh', ['-c', `umask 000 && exec "${process.execPath}" "${BIN}" serve`], { env: { ...process.env, ...denv, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
      procs.push(proc);
      let logs = '';
      proc.stdout.on('data', (c: Buffer) => (logs += c.toString()));
      proc.stderr.on('data', (c: Buffer) => (logs += c.toString()));
      const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
      await waitFor(`http://127.0.0.1:${port}/health`);
      // a write, so that SQLite has its -wal and -shm files in use
      const token = fs.readFileSync(path.join(dir, 'admin-token'), 'utf8').trim();
      const put = await fetch(`http://127.0.0.1:${port}/2.0/sheets`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'm', columns: [{ title: 'A', primary: true, type: 'TEXT_NUMBER' }] }) });
      assert.equal(put.status, 200);
      return { logs: () => logs, stop: async () => { proc.kill('SIGTERM'); assert.equal(await exited, 0); } };
    };
    const mode = (p: string) => fs.statSync(p).mode & 0o777;
    const dbFiles = TEST_PG_URL ? [] : ['sheetd.db', 'sheetd.db-wal', 'sheetd.db-shm'];
    try {
      const first = await start();
      assert.equal(mode(dir), 0o700);
      for (const f of ['admin-token', ...dbFiles]) assert.equal(mode(path.join(dir, f)), 0o600, f);
      assert.ok(!first.logs().includes('open to its group or others'));
      await first.stop();

      fs.chmodSync(dir, 0o755);
      for (const f of dbFiles) if (fs.existsSync(path.join(dir, f))) fs.chmodSync(path.join(dir, f), 0o644);
      const second = await start();
      assert.ok(second.logs().includes('open to its group or others'), second.logs());
      assert.equal(mode(dir), 0o755, 'an existing directory keeps the mode its operator gave it');
      for (const f of dbFiles) assert.equal(mode(path.join(dir, f)), 0o600, f);
      await second.stop();
    } finally {
      for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
      fs.rmSync(root, { recursive: true, force: true });
      if (pgDb) await pgDb.drop();
    }
  });

  test('user add and token create: the printed token works for that user with the given scopes', async () => {
    const add = await run(['user', 'add', '--email', 'worker@example.com', '--first-name', 'Wo', '--last-name', 'Rker'], env);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout.trim(), /^\d+$/);
    const dup = await run(['user', 'add', '--email', 'worker@example.com'], env);
    assert.notEqual(dup.code, 0);
    const tok = await run(['token', 'create', '--email', 'worker@example.com', '--name', 'ci', '--scopes', 'READ_SHEETS'], env);
    assert.equal(tok.code, 0, tok.stderr);
    const raw = tok.stdout.trim();
    assert.match(raw, /^[a-z0-9]{26,}$/);
    const bad = await run(['token', 'create', '--email', 'nobody@example.com'], env);
    assert.notEqual(bad.code, 0);
    const badScope = await run(['token', 'create', '--email', 'worker@example.com', '--scopes', 'READ_EVERYTHING'], env);
    assert.notEqual(badScope.code, 0);

    const port = await freePort();
    const proc = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' });
    try {
      await waitFor(`http://127.0.0.1:${port}/health`);
      const me = await get(`http://127.0.0.1:${port}/2.0/users/me`, { authorization: `Bearer ${raw}` });
      assert.equal(me.status, 200);
      assert.equal(JSON.parse(me.body).email, 'worker@example.com');
      assert.equal(JSON.parse(me.body).firstName, 'Wo');
      // READ_SHEETS only: listing users (READ_USERS) is refused
      const users = await get(`http://127.0.0.1:${port}/2.0/users`, { authorization: `Bearer ${raw}` });
      assert.equal(users.status, 403);
      assert.equal(JSON.parse(users.body).errorCode, 1004);
    } finally {
      proc.kill('SIGTERM');
    }
  });

  test('search rebuild: builds the search index from the data', async () => {
    const r = await run(['search', 'rebuild'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^search index rebuilt in \d+\.\d s\n$/);
  });

  test('SHEETD_ERROR_LOG: the server notes each error code it answers (npm run catalogue reads these notes)', async () => {
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-codes-'));
    const port = await freePort();
    const proc = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env, PORT: String(port), SHEETD_ERROR_LOG: logDir }, stdio: 'ignore' });
    try {
      await waitFor(`http://127.0.0.1:${port}/health`);
      assert.equal((await get(`http://127.0.0.1:${port}/2.0/sheets`, {})).status, 401);
      assert.equal((await get(`http://127.0.0.1:${port}/2.0/sheets`, { authorization: 'Bearer nonsense' })).status, 401);
      assert.equal((await get(`http://127.0.0.1:${port}/2.0/sheets`, {})).status, 401);
      const noted = fs.readdirSync(logDir).flatMap((f) => fs.readFileSync(path.join(logDir, f), 'utf8').split('\n').filter(Boolean));
      assert.deepEqual(noted.sort(), ['1001', '1002']);
    } finally {
      proc.kill('SIGTERM');
      fs.rmSync(logDir, { recursive: true, force: true });
    }
  });

  test('HTTPS when SHEETD_TLS_CERT and SHEETD_TLS_KEY name PEM files', async () => {
    const key = path.join(dataDir, 'key.pem');
    const cert = path.join(dataDir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
    const port = await freePort();
    const proc = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env, PORT: String(port), SHEETD_TLS_CERT: cert, SHEETD_TLS_KEY: key }, stdio: 'ignore' });
    try {
      await waitFor(`https://127.0.0.1:${port}/health`, { insecure: true });
      const info = await get(`https://127.0.0.1:${port}/2.0/serverinfo`, {}, { insecure: true });
      assert.equal(info.status, 200);
      assert.equal(JSON.parse(info.body).formats.bold[1], 'on');
      await assert.rejects(fetch(`http://127.0.0.1:${port}/health`));
    } finally {
      proc.kill('SIGTERM');
    }
  });
});

describe('sheetd serve --test-mode', () => {
  test('--seed needs --test-mode; with it the fixture is loaded at start and the controls answer', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetd-cli-tm-'));
    try {
      const fixture = path.join(dir, 'fixture.json');
      fs.writeFileSync(fixture, JSON.stringify({ sheets: [{ key: 's', name: 'Seeded', columns: [{ title: 'A', type: 'TEXT_NUMBER', primary: true }] }] }));
      const env: Env = { SHEETD_DATA_DIR: path.join(dir, 'data'), SHEETD_LOG_LEVEL: 'warn' };
      const refused = await run(['serve', '--seed', fixture], env);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /needs test mode/);
      const port = await freePort();
      const proc = spawn(process.execPath, [BIN, 'serve', '--test-mode', '--seed', fixture], { env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' });
      try {
        await waitFor(`http://127.0.0.1:${port}/health`);
        const token = fs.readFileSync(path.join(dir, 'data', 'admin-token'), 'utf8').trim();
        const auth = { authorization: `Bearer ${token}` };
        const sheets = JSON.parse((await get(`http://127.0.0.1:${port}/2.0/sheets`, auth)).body) as { data: Array<{ name: string }> };
        assert.deepEqual(sheets.data.map((x) => x.name), ['Seeded']);
        assert.equal((await get(`http://127.0.0.1:${port}/2.0/sheetd/test/clock`, auth)).status, 200);
      } finally {
        const exited = new Promise((resolve) => proc.on('exit', resolve));
        proc.kill('SIGTERM');
        await exited;
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
