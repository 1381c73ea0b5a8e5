/**
 * Between the sheet's stored cells and the formula engine.
 *
 * Formulas are stored in an identity form: `[c<columnId>]<rowId>` instead of `[Title]<rowNumber>`,
 * so renaming columns or moving, adding and deleting rows never rewrites stored formulas; the
 * text a client sees is rendered from it with the sheet's current titles and row numbers (a
 * deleted row or column renders as #REF).
 */
import type { StoredValue } from './cells.ts';
import type { ColumnDef } from './columns.ts';
import { parseFormula, render, staticSchema, type FormulaResult, type RawCellValue, type SheetSchema } from './formula/index.ts';
import { valueText } from './display.ts';
import { walk, type RowRef } from './formula/ast.ts';

/** Row ids are at least 2^40; row numbers never come close (500,000 cells per sheet). */
const MIN_ROW_ID = 2 ** 40;

export const IDENTITY_SCHEMA: SheetSchema = {
  columnIdByTitle: (t) => (/^c\d{1,16}$/.test(t) ? Number(t.slice(1)) : undefined),
  columnTitle: (id) => `c${id}`,
  rowIdByNumber: (n) => (n >= MIN_ROW_ID ? n : undefined),
  rowNumber: (id) => id,
};

export function sheetSchema(columns: readonly Pick<ColumnDef, 'id' | 'title'>[], displayOrder: readonly number[]): SheetSchema {
  return staticSchema(columns, displayOrder);
}

/** Client text (titles, row numbers) -> stored identity form. */
export function toIdentityForm(text: string, schema: SheetSchema): string {
  const f = parseFormula(text, schema);
  return f.ok ? render(f, IDENTITY_SCHEMA) : text;
}

/**
 * Whether a formula names a row by a number that is not absolute (`[B]3`, `B3:B5`, not `B$3`):
 * such a formula cannot stand for every row of a column formula (1310). `@row`, `$3` and whole
 * columns can. A formula that does not parse names none.
 */
export function hasRelativeRowReference(text: string, schema: SheetSchema): boolean {
  const f = parseFormula(text, schema);
  if (!f.ok) return false;
  const relative = (r: RowRef | null) => r !== null && r.kind !== 'at' && !r.abs;
  let found = false;
  walk(f.root, (n) => {
    if ((n.type === 'cell' && relative(n.row)) || (n.type === 'range' && (relative(n.r1) || relative(n.r2)))) found = true;
  });
  return found;
}

/** Stored identity form -> text with the current titles and row numbers. */
export function fromIdentityForm(stored: string, schema: SheetSchema): string {
  const f = parseFormula(stored, IDENTITY_SCHEMA);
  return f.ok ? render(f, schema) : stored;
}

/**
 * The columns of a sheet that has no rows yet (a sheet just created from columns) with their
 * formulas in the text a client reads (current titles) instead of the stored identity form.
 */
export function withFormulaText<T extends Pick<ColumnDef, 'id' | 'title' | 'formula'>>(columns: readonly T[]): T[] {
  const schema = sheetSchema(columns, []);
  return columns.map((c) => (c.formula === undefined ? c : { ...c, formula: fromIdentityForm(c.formula, schema) }));
}

/** A stored value as the formula engine reads it (with its column's type). */
export function storedToRaw(column: ColumnDef, v: StoredValue | undefined): RawCellValue {
  if (v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if ('d' in v) return v.d;
  if ('t' in v) return new Date(v.t).toISOString();
  if ('mp' in v) return v.mp;
  if ('mc' in v) return v.mc.map((c) => c.email);
  if ('c' in v) return v.c.email;
  return valueText(column, v, undefined);
}

/** A formula's result as the stored value of a cell in `column`. */
export function resultToStored(column: ColumnDef, r: FormulaResult): StoredValue | undefined {
  if (r.value === null || r.type === 'BLANK') return undefined;
  if (r.type === 'DATE' && typeof r.value === 'string' && (column.type === 'DATE' || column.type === 'ABSTRACT_DATETIME')) return { d: r.value };
  if (r.type === 'DATETIME' && typeof r.value === 'string' && (column.type === 'DATETIME' || column.type === 'ABSTRACT_DATETIME')) {
    const ms = Date.parse(r.value.endsWith('Z') ? r.value : r.value + 'Z');
    if (!Number.isNaN(ms)) return { t: ms };
  }
  return r.value;
}

/**
 * A stored formula (identity form) pointed at a copy's columns and rows (Copy Sheet, a sheet
 * from a template, a copied summary): references to columns or rows the copy does not have
 * become #REF, as they would for deleted ones. Text that does not parse is kept as it is.
 */
export function remapIdentityFormula(fx: string, colMap: ReadonlyMap<number, number>, rowMap: ReadonlyMap<number, number>): string {
  const f = parseFormula(fx, IDENTITY_SCHEMA);
  if (!f.ok) return fx;
  return render(f, {
    ...IDENTITY_SCHEMA,
    columnTitle: (id) => {
      const n = colMap.get(id);
      return n === undefined ? undefined : `c${n}`;
    },
    rowNumber: (id) => rowMap.get(id),
  });
}
