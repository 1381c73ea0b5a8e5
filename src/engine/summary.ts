/**
 * Sheet summary fields: a field is a column-like definition (type, options, symbol, contact
 * options, validation, format, locked) with one cell. Its value is parsed and shown exactly like
 * a cell of a column of the same definition (values.ts, display.ts): `fieldColumn` gives that
 * column. This module checks the definitions written through Add and Update Summary Fields and
 * throws the summary codes of the catalogue (1191 to 1208).
 */
import { InvalidInput, LimitExceeded } from './errors.ts';
import {
  CHECKBOX_SYMBOLS, COLUMN_TYPES, columnVersion, PICKLIST_SYMBOLS,
  type ColumnDef, type ColumnType, type ContactOption,
} from './columns.ts';
import { isValidEmail } from './contacts.ts';
import { isDefaultFormat, normaliseFormat } from './format.ts';
import { isObject, type Obj } from './input.ts';
import { MAX_COLUMN_TITLE_CHARS } from './limits.ts';

/** Fields per sheet (1199 beyond). The service's own limit was not in the material at hand. */
export const MAX_SUMMARY_FIELDS = 300;

export interface SummaryFieldDef {
  id: number;
  index: number;
  title: string;
  type: ColumnType;
  options?: string[];
  symbol?: string;
  contactOptions?: ContactOption[];
  validation?: boolean;
  format?: string;
  locked?: boolean;
}

/** The column a field's value is parsed and shown with (never locked: the field's lock is 1192, checked first). */
export function fieldColumn(f: SummaryFieldDef): ColumnDef {
  const c: ColumnDef = { id: f.id, index: f.index, title: f.title, type: f.type, version: columnVersion(f.type) };
  if (f.options !== undefined) c.options = f.options;
  if (f.symbol !== undefined) c.symbol = f.symbol;
  if (f.contactOptions !== undefined) c.contactOptions = f.contactOptions;
  if (f.validation !== undefined) c.validation = f.validation;
  return c;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function title(v: unknown): string {
  if (typeof v !== 'string') throw new InvalidInput(1191);
  const t = v.trim();
  if (t === '') throw new InvalidInput(1207);
  if (t.length > MAX_COLUMN_TITLE_CHARS) throw new LimitExceeded(1041, 'title', MAX_COLUMN_TITLE_CHARS, t.length);
  return t;
}

function strings(v: unknown): string[] {
  if (!Array.isArray(v)) throw new InvalidInput(1191);
  return v.map((x) => {
    if (x === null) throw new InvalidInput(1176, 'options');
    if (typeof x !== 'string' && typeof x !== 'number') throw new InvalidInput(1191);
    return String(x);
  });
}

function contacts(v: unknown): ContactOption[] {
  if (!Array.isArray(v)) throw new InvalidInput(1191);
  return v.map((x) => {
    if (x === null) throw new InvalidInput(1176, 'contactOptions');
    if (!isObject(x)) throw new InvalidInput(1191);
    const c: ContactOption = {};
    if (present(x.email)) {
      if (typeof x.email !== 'string' || !isValidEmail(x.email)) throw new InvalidInput(1156);
      c.email = x.email;
    }
    if (present(x.name)) {
      if (typeof x.name !== 'string') throw new InvalidInput(1191);
      c.name = x.name;
    }
    if (c.email === undefined && c.name === undefined) throw new InvalidInput(1207);
    return c;
  });
}

function bool(v: unknown): boolean {
  if (typeof v !== 'boolean') throw new InvalidInput(1191);
  return v;
}

/** What a written field asks to change in the definition (attributes absent: unchanged). */
export interface FieldDefinitionWrite {
  title?: string;
  type?: ColumnType;
  options?: string[] | null;
  symbol?: string | null;
  contactOptions?: ContactOption[] | null;
  validation?: boolean;
  format?: string | null;
  locked?: boolean;
  index?: number;
}

/**
 * Whether a write changes the definition (title, type, options, symbol, contact options,
 * validation, locked, index): only sheet admins do. Attributes sent back as they are (a field
 * read, its value changed, written back) change nothing.
 */
export function changesDefinition(f: SummaryFieldDef, w: FieldDefinitionWrite): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  return (w.title !== undefined && w.title !== f.title)
    || (w.type !== undefined && w.type !== f.type)
    || (w.index !== undefined && w.index !== f.index)
    || (w.locked !== undefined && w.locked !== (f.locked === true))
    || (w.validation !== undefined && w.validation !== (f.validation === true))
    || (w.options !== undefined && !same(w.options?.length ? w.options : null, f.options))
    || (w.symbol !== undefined && !same(w.symbol, f.symbol))
    || (w.contactOptions !== undefined && !same(w.contactOptions?.length ? w.contactOptions : null, f.contactOptions));
}

/**
 * Reads the definition attributes of one written field: types (1191), empty title (1207),
 * type names (1031), image (1201: images come through Add Image to Summary Field).
 */
export function readDefinition(b: Obj): FieldDefinitionWrite {
  const out: FieldDefinitionWrite = {};
  if (present(b.image)) throw new InvalidInput(1201);
  if (b.title !== undefined) out.title = title(b.title);
  if (present(b.type)) {
    if (typeof b.type !== 'string') throw new InvalidInput(1191);
    if (!(COLUMN_TYPES as readonly string[]).includes(b.type)) throw new InvalidInput(1031, b.type, 'type');
    out.type = b.type as ColumnType;
  }
  if (b.options !== undefined) out.options = b.options === null ? null : strings(b.options);
  if (b.symbol !== undefined) {
    if (b.symbol !== null && typeof b.symbol !== 'string') throw new InvalidInput(1191);
    out.symbol = b.symbol;
  }
  if (b.contactOptions !== undefined) out.contactOptions = b.contactOptions === null ? null : contacts(b.contactOptions);
  if (present(b.validation)) out.validation = bool(b.validation);
  if (present(b.locked)) out.locked = bool(b.locked);
  if (b.format !== undefined) {
    if (b.format !== null && typeof b.format !== 'string') throw new InvalidInput(1191);
    if (b.format === null || isDefaultFormat(b.format)) out.format = null;
    else {
      try {
        out.format = normaliseFormat(b.format);
      } catch {
        throw new InvalidInput(1206);
      }
    }
  }
  if (present(b.index)) {
    if (typeof b.index !== 'number' || !Number.isInteger(b.index)) throw new InvalidInput(1191);
    if (b.index < 0) throw new InvalidInput(1031, String(b.index), 'index');
    out.index = b.index;
  }
  return out;
}

/**
 * The definition after a write: symbols with options (1197), symbols of another type (1198),
 * options on a type without options (1194). `typeGiven` is false on an update that leaves the
 * type: options or symbols then need it (1196).
 */
export function applyDefinition(base: SummaryFieldDef, w: FieldDefinitionWrite, typeRequired: boolean): SummaryFieldDef {
  if (typeRequired && w.type === undefined && (w.options !== undefined || w.symbol !== undefined || w.contactOptions !== undefined)) throw new InvalidInput(1196);
  const f: SummaryFieldDef = { ...base };
  if (w.title !== undefined) f.title = w.title;
  if (w.type !== undefined && w.type !== base.type) {
    f.type = w.type;
    // options and symbols belong to a type: a new type starts without them unless given
    delete f.options;
    delete f.symbol;
    delete f.contactOptions;
  }
  for (const k of ['options', 'symbol', 'contactOptions'] as const) {
    const v = w[k];
    if (v === undefined) continue;
    if (v === null || (Array.isArray(v) && v.length === 0)) delete f[k];
    else (f as unknown as Record<string, unknown>)[k] = v;
  }
  if (w.validation !== undefined) f.validation = w.validation;
  if (w.locked !== undefined) f.locked = w.locked;
  if (w.format !== undefined) {
    if (w.format === null) delete f.format;
    else f.format = w.format;
  }
  if (f.symbol !== undefined) {
    if (f.options !== undefined) throw new InvalidInput(1197);
    const allowed: readonly string[] = f.type === 'CHECKBOX' ? CHECKBOX_SYMBOLS : f.type === 'PICKLIST' ? PICKLIST_SYMBOLS : [];
    if (!allowed.includes(f.symbol)) throw new InvalidInput(1198);
  }
  if (f.options !== undefined && f.type !== 'PICKLIST' && f.type !== 'MULTI_PICKLIST') throw new InvalidInput(1194);
  if (f.contactOptions !== undefined && f.type !== 'CONTACT_LIST' && f.type !== 'MULTI_CONTACT_LIST') throw new InvalidInput(1194);
  if (f.validation === false) delete f.validation;
  if (f.locked === false) delete f.locked;
  return f;
}

/** `title`, or `title (n)` with the lowest n not taken (renameIfConflict). */
export function uniqueTitle(title: string, taken: ReadonlySet<string>): string {
  if (!taken.has(title.toLowerCase())) return title;
  for (let n = 1; ; n++) {
    const t = `${title} (${n})`;
    if (!taken.has(t.toLowerCase())) return t;
  }
}
