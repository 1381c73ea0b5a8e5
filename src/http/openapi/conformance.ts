import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ValidateFunction } from 'ajv';
import { COMPONENTS, operationBodies, UNDESCRIBED } from './bodies.ts';
import type { Schema } from './schema.ts';

/**
 * The test suite's conformance check: with SHEETD_RESPONSE_CHECK set to a directory, every JSON
 * answer of an API operation is validated against that operation's response schema in the OpenAPI
 * document (a failure status against the Error object), and each answer that does not validate is
 * appended to failures-PID.jsonl there (with the test file when the server runs inside one);
 * scripts/test.mjs reads the directory once the run is over and fails the run if any file is there.
 * Operations listed in UNDESCRIBED are noted in undescribed-PID.txt instead, once each.
 *
 * The schemas are compiled by one Ajv instance per process, each component once and each
 * operation's response once, when first answered; unset (production), none of this is loaded.
 */

/** answers from this size on are not checked (see the hook) */
const LARGE = 1024 * 1024;
const SCHEMA_BASE = 'https://sheetd.invalid/openapi/';
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** '#/components/schemas/Name' -> the component's id in the Ajv instance */
function absoluteRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absoluteRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/') ? SCHEMA_BASE + v.slice('#/components/schemas/'.length) : absoluteRefs(v);
  }
  return out;
}

interface Checker {
  /**
   * the validator of an operation's answer with this status, null when none is described, 'file'
   * when the answer is a file of any type (a downloaded attachment that is itself JSON)
   */
  validator(key: string, status: number): ValidateFunction | null | 'file';
}

async function makeChecker(): Promise<Checker> {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  ajv.addFormat('date-time', DATE_TIME);
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  ajv.addFormat('binary', true);
  for (const [name, schema] of Object.entries(COMPONENTS)) ajv.addSchema(absoluteRefs(schema) as Schema, SCHEMA_BASE + name);
  const compiled = new Map<string, ValidateFunction | null | 'file'>();
  const errorValidator = ajv.compile({ $ref: SCHEMA_BASE + 'Error' });
  return {
    validator(key, status) {
      if (status >= 400) return errorValidator;
      const id = `${key} ${status}`;
      let v = compiled.get(id);
      if (v === undefined) {
        const media = operationBodies(key)?.responses[String(status)];
        const schema = media?.['application/json'];
        v = schema ? ajv.compile(absoluteRefs(schema) as Schema) : media?.['*/*'] !== undefined ? 'file' : null;
        compiled.set(id, v);
      }
      return v;
    },
  };
}

export interface ConformanceFailure {
  operation: string;
  status: number;
  /** the test file whose server answered, when the server ran inside it */
  file?: string;
  errors: unknown;
  /** the start of the answer */
  body: string;
}

/** The test file this process runs (node --test runs each file in a process of its own). */
function testFile(): string | undefined {
  const f = process.argv.find((a) => a.endsWith('.test.ts'));
  return f === undefined ? undefined : path.relative(process.cwd(), f);
}

export function installResponseCheck(app: FastifyInstance, dir: string): void {
  let checker: Promise<Checker> | null = null;
  const unchecked = new Set<string>();
  const file = testFile();
  const record = (failure: ConformanceFailure) => fs.appendFileSync(path.join(dir, `failures-${process.pid}.jsonl`), JSON.stringify(failure) + '\n');

  const check = async (key: string, status: number, text: string) => {
    try {
      checker ??= makeChecker();
      const v = (await checker).validator(key, status);
      if (v === 'file') return;
      if (v === null) {
        if (key in UNDESCRIBED) {
          if (!unchecked.has(key)) {
            unchecked.add(key);
            fs.appendFileSync(path.join(dir, `undescribed-${process.pid}.txt`), key + '\n');
          }
        } else {
          record({ operation: key, status, ...(file ? { file } : {}), errors: `no response schema for status ${status}`, body: text.slice(0, 300) });
        }
      } else if (!v(JSON.parse(text))) {
        record({ operation: key, status, ...(file ? { file } : {}), errors: v.errors, body: text.slice(0, 300) });
      }
    } catch (e) {
      record({ operation: key, status, ...(file ? { file } : {}), errors: `the check failed: ${(e as Error).message}`, body: text.slice(0, 300) });
    }
  };

  // onSend on the root, added before compression: the answer as serialized, streamed ones too
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const url = req.routeOptions.url;
    if (url === undefined || !url.startsWith('/2.0/') || req.method === 'HEAD' || payload === null || payload === undefined) return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
    const key = `${req.method} ${url.slice('/2.0'.length).replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}')}`;
    // answers of a megabyte and more (Get Sheet of large sheets; sent gzipped when the client takes
    // it) are left out: parsing and validating tens of megabytes would hold up the server's other
    // answers, and the same operations' smaller answers are checked
    if (reply.getHeader('content-encoding') !== undefined) return payload;
    const status = reply.statusCode;
    if (typeof payload === 'string') {
      if (payload.length < LARGE) await check(key, status, payload);
    } else if (Buffer.isBuffer(payload)) {
      if (payload.length < LARGE) await check(key, status, payload.toString('utf8'));
    } else if (payload instanceof Readable) {
      // a streamed answer (Get Sheet) stays streamed: its text is kept as it passes, checked at its end
      let chunks: Buffer[] | null = [];
      let size = 0;
      const tee = new Transform({
        transform(chunk: Buffer | string, _enc, done) {
          const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
          size += b.length;
          if (size >= LARGE) chunks = null;
          else chunks?.push(b);
          done(null, chunk);
        },
        flush(done) {
          if (chunks === null) return done();
          check(key, status, Buffer.concat(chunks).toString('utf8')).then(() => done(), done);
        },
      });
      payload.on('error', (e) => tee.destroy(e));
      return payload.pipe(tee);
    }
    return payload;
  });
}
