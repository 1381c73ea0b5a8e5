import { PassThrough, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import { ApiError, apiError } from '../errors.ts';
import type { FileUpload } from '../services/collaboration/attachments.ts';

type Done = (err: Error | null, body?: Readable) => void;

/**
 * A content-type parser that hands the body on as a stream (an upload is never read whole). A
 * declared length beyond `limit()` is refused before reading (1074); the service enforces the
 * limit on what actually arrives. The request goes on through a PassThrough: a failed write
 * destroys the stream it reads, and destroying the request itself would cut the connection
 * before the error response goes out.
 */
export function streamingParser(limit: () => number) {
  return (req: FastifyRequest, payload: Readable, done: Done) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit()) return done(apiError(1074, `${declared} bytes`, `${limit()} bytes`));
    const body = payload.pipe(new PassThrough());
    // pipe() passes no errors on: a client gone mid-upload must end the write, not stall it
    payload.once('close', () => payload.readableEnded || body.destroy(new Error('the request ended before its body')));
    done(null, body);
  };
}

/**
 * onRequest hook of the routes that take a file as the body (simple uploads, images). A simple
 * upload is told by its Content-Disposition (spec 4.5: "attachment; filename=..."): its body is
 * the file whatever Content-Type says. "Content-Type may be blank": a blank type is a file whose
 * type is guessed; and the npm SDK calls any file it cannot type by its name (no extension,
 * .json) application/json, which must not be read as JSON (a URL attachment, or refused).
 */
export function fileByDisposition(req: { headers: FastifyRequest['headers'] }, _reply: unknown, done: () => void): void {
  const disposition = req.headers['content-disposition'];
  if (disposition !== undefined) {
    const type = (req.headers['content-type'] ?? '').trim();
    if (type === '' || (/^attachment\b/i.test(disposition.trim()) && /^application\/json\b/i.test(type))) {
      req.headers['content-type'] = 'application/octet-stream';
    }
  }
  done();
}

/** Runs an upload handler; an answer before the whole body arrived ends the connection. */
export async function answeringEarly<T>(req: FastifyRequest, reply: FastifyReply, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    // what is left unread must not be taken for the next request
    if (!req.raw.complete) reply.header('connection', 'close');
    throw e;
  }
}

export function isMultipart(req: FastifyRequest): boolean {
  return /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');
}

export interface MultipartSpec {
  /** JSON parts by name, and whether each is required. */
  json: Record<string, boolean>;
  /** Whether the `file` part is required. */
  fileRequired: boolean;
}

/**
 * Reads a multipart request (spec 4.5): every part named (1125), no name twice (1126), no
 * unknown names (1147), the required ones present (1127), JSON parts parsed (1008), a file over
 * the limit 1128, anything malformed 1145. The file part is handed to `onFile` as it streams
 * (it cannot wait for the parts after it); what onFile returns is given back.
 */
export async function readMultipart<T>(
  req: FastifyRequest, spec: MultipartSpec, onFile: (f: FileUpload) => Promise<T>,
): Promise<{ json: Record<string, unknown>; file: T | undefined }> {
  const json: Record<string, unknown> = {};
  const seen = new Set<string>();
  let file: T | undefined;
  try {
    for await (const part of req.parts()) {
      const name = part.fieldname;
      if (name === undefined || name === '') throw apiError(1125);
      if (seen.has(name)) throw apiError(1126, name);
      seen.add(name);
      if (name === 'file') {
        if (part.type !== 'file') throw apiError(1338);
        file = await onFile({
          body: part.file,
          fileName: part.filename === '' ? null : safeName(part.filename),
          contentType: part.mimetype,
          tooLarge: () => apiError(1128),
        });
        continue;
      }
      if (!(name in spec.json)) throw apiError(1147, name);
      // a field sent as application/json arrives parsed already (@fastify/multipart)
      if (part.type === 'field' && typeof part.value !== 'string') {
        json[name] = part.value;
        continue;
      }
      const text = part.type === 'field' ? String(part.value) : (await part.toBuffer()).toString('utf8');
      try {
        json[name] = JSON.parse(text);
      } catch (e) {
        throw apiError(1008, (e as Error).message);
      }
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw apiError(1128);
    throw apiError(1145);
  }
  for (const [name, required] of Object.entries(spec.json)) if (required && !(name in json)) throw apiError(1127, name);
  if (spec.fileRequired && file === undefined) throw apiError(1127, 'file');
  return { json, file };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A file name as given (URL-encoded or not), without a path or control characters. */
function safeName(raw: string): string | null {
  const name = [...decode(raw).replace(/^.*[\\/]/, '')].filter((ch) => ch >= ' ' && ch !== '\u007f').join('').slice(0, 255);
  return name === '' ? null : name;
}

/** The file name of `Content-Disposition: attachment; filename="x.png"` (URL-encoded or RFC 5987). */
export function fileNameOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const star = /filename\*\s*=\s*[\w-]*'[\w-]*'([^;\s]+)/i.exec(header);
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  const bare = /filename\s*=\s*([^;"\s]+)/i.exec(header);
  const raw = star ? star[1]! : quoted ? quoted[1]!.replace(/\\(.)/g, '$1') : bare ? bare[1]! : null;
  return raw === null ? null : safeName(raw);
}

/**
 * Reads a multipart request of files only (Create Proof with several images): every file part
 * is handed to `onFile` as it streams, whatever its name; a text part `name` is allowed (the
 * reference shows it) and ignored; any other part is 1147. At least one file (1127).
 */
export async function readMultipartFiles<T>(req: FastifyRequest, onFile: (f: FileUpload) => Promise<T>): Promise<T[]> {
  const files: T[] = [];
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        files.push(await onFile({
          body: part.file,
          fileName: part.filename === '' ? null : safeName(part.filename),
          contentType: part.mimetype,
          tooLarge: () => apiError(1128),
        }));
        continue;
      }
      if (part.fieldname !== 'name') throw apiError(1147, part.fieldname);
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw apiError(1128);
    if (code === 'FST_FILES_LIMIT') throw apiError(1145, 'too many files');
    throw apiError(1145);
  }
  if (files.length === 0) throw apiError(1127, 'file');
  return files;
}
