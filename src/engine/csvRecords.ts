/**
 * CSV text to records, fed in chunks, for Import Sheet: the records csv-parse gives with
 * `{ bom: true, relax_column_count: true, skip_empty_lines: false }` (the reader sheetd used
 * before; test/engine/csv-records.test.ts holds the two side by side), in a third of its time:
 * one pass over the characters, fields cut out of the text as slices.
 *
 * - Fields are separated by commas; a field starting with `"` is quoted, `""` in it is one quote,
 *   and it may hold commas and line breaks.
 * - Records end at the record delimiter: the first line break outside quotes says which
 *   (`\r\n`, `\n` or `\r`); from then on only that one ends records (another is data).
 * - An empty line is a record of one empty field; the end of the text ends the last record
 *   unless nothing came after the last delimiter. A UTF-8 byte order mark at the start is left out.
 * - Refused (InvalidInput 1008): a quote inside an unquoted field, anything but a comma or the
 *   record delimiter after a closing quote, a quote not closed at the end.
 */
import { InvalidInput } from './errors.ts';

const COMMA = 44;
const QUOTE = 34;
const CR = 13;
const LF = 10;

function refused(what: string, line: number): InvalidInput {
  return new InvalidInput(1008, `the CSV file: ${what} at line ${line}`);
}

export class CsvRecords {
  /** Text not yet taken: the record begun and not ended (or a trailing \r whose next character decides). */
  private rest = '';
  private started = false;
  /** The record delimiter once found: '\r\n', '\n' or '\r'. */
  private delimiter = '';
  private line = 1;

  /** The records the chunk completes. */
  push(chunk: string): string[][] {
    let text = this.rest + chunk;
    if (!this.started) {
      if (text.length === 0) return [];
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return this.scan(text, false);
  }

  /** The last record, if the text did not end with a delimiter. */
  end(): string[][] {
    const text = this.rest;
    this.rest = '';
    return text.length === 0 ? [] : this.scan(text, true);
  }

  /**
   * Takes every record of `text` that ends in it (all when `last`) and keeps the rest. A record
   * cut by the end of a chunk is read again from its start with the next chunk: records are
   * short beside a chunk.
   */
  private scan(text: string, last: boolean): string[][] {
    const out: string[][] = [];
    const n = text.length;
    let recordStart = 0;
    let i = 0;
    let record: string[] = [];
    const lineAt = (k: number) => this.line + countLines(text, 0, k);
    outer: while (i <= n) {
      // at the start of a field
      if (i === n) {
        // the text ends here: a record is complete only at the very end, when anything of it was read
        if (last && i > recordStart) {
          record.push('');
          out.push(record);
          recordStart = n;
        }
        break;
      }
      let c = text.charCodeAt(i);
      if (c === QUOTE) {
        // quoted field
        let value = '';
        let from = i + 1;
        let j = from;
        for (;;) {
          const q = text.indexOf('"', j);
          if (q < 0) {
            if (last) throw refused('a quote is not closed', lineAt(i));
            break outer;
          }
          if (q + 1 < n && text.charCodeAt(q + 1) === QUOTE) {
            value += text.slice(from, q + 1);
            from = j = q + 2;
            continue;
          }
          if (q + 1 === n && !last) break outer; // a quote at the end of the chunk: "" or the close?
          value += text.slice(from, q);
          i = q + 1;
          break;
        }
        record.push(value);
        if (i === n) {
          if (!last) break;
          out.push(record);
          recordStart = n;
          break;
        }
        c = text.charCodeAt(i);
        if (c === COMMA) {
          i++;
          continue;
        }
        const end = this.delimiterAt(text, i, last);
        if (end === -1) break; // undecided until the next chunk
        if (end === 0) throw refused('a closing quote is not followed by a comma or the end of the line', lineAt(i));
        out.push(record);
        record = [];
        i += end;
        recordStart = i;
        continue;
      }
      // unquoted field: up to a comma or the delimiter
      const from = i;
      for (;;) {
        if (i === n) {
          if (!last) break outer;
          record.push(text.slice(from, i));
          out.push(record);
          recordStart = n;
          break outer;
        }
        c = text.charCodeAt(i);
        if (c === COMMA) {
          record.push(text.slice(from, i));
          i++;
          continue outer;
        }
        if (c === QUOTE) throw refused('a quote inside a field that is not quoted', lineAt(i));
        if (c === CR || c === LF) {
          const end = this.delimiterAt(text, i, last);
          if (end === -1) break outer;
          if (end > 0) {
            record.push(text.slice(from, i));
            out.push(record);
            record = [];
            i += end;
            recordStart = i;
            continue outer;
          }
        }
        i++;
      }
    }
    this.line += countLines(text, 0, recordStart);
    this.rest = recordStart >= n ? '' : text.slice(recordStart);
    return out;
  }

  /**
   * The length of the record delimiter at `i` (0: a line break that is data, -1: not known before
   * the next chunk). The first line break found decides the delimiter.
   */
  private delimiterAt(text: string, i: number, last: boolean): number {
    const c = text.charCodeAt(i);
    if (c !== CR && c !== LF) return 0;
    if (this.delimiter === '') {
      if (c === LF) this.delimiter = '\n';
      else if (i + 1 < text.length) this.delimiter = text.charCodeAt(i + 1) === LF ? '\r\n' : '\r';
      else if (last) this.delimiter = '\r';
      else return -1;
    }
    if (this.delimiter === '\n') return c === LF ? 1 : 0;
    if (this.delimiter === '\r') return c === CR ? 1 : 0;
    if (c !== CR) return 0;
    if (i + 1 < text.length) return text.charCodeAt(i + 1) === LF ? 2 : 0;
    return last ? 0 : -1;
  }
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let k = text.indexOf('\n', from); k >= 0 && k < to; k = text.indexOf('\n', k + 1)) n++;
  return n;
}
