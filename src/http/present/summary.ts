import { typeAtLevel } from '../../engine/columns.ts';
import { presentCell } from '../../engine/display.ts';
import { isDefaultFormat } from '../../engine/format.ts';
import { fieldColumn } from '../../engine/summary.ts';
import { atLeast } from '../../services/access/access.ts';
import type { ReadOptions } from '../../services/platform/context.ts';
import type { SummaryField, SummaryRead } from '../../services/computed/summary.ts';
import { ts } from './dates.ts';
import { permalink } from '../../render/permalinks.ts';

/**
 * A SummaryField as the API shows it: the definition, the value as `objectValue` (a summary
 * field has no `value`) with `displayValue` unless excluded, formula, hyperlink, image, and
 * with include=format its format, with include=writerInfo createdBy and modifiedBy.
 */
export function presentField(s: SummaryRead, f: SummaryField, ro: ReadOptions, permalinkBase: string): Record<string, unknown> {
  const d = f.def;
  const column = fieldColumn(d);
  const cell = presentCell(column, f.cell, {
    level: ro.level,
    numericDates: ro.numericDates,
    includeObjectValue: true,
    includeFormat: true,
    permalinkOf: (kind, id) => permalink({ publicUrl: permalinkBase }, kind, id),
  });
  const out: Record<string, unknown> = { id: d.id, index: d.index, title: d.title, type: typeAtLevel(column, ro.level) };
  if (d.options !== undefined) out.options = d.options;
  if (d.symbol !== undefined) out.symbol = d.symbol;
  if (d.contactOptions !== undefined) out.contactOptions = d.contactOptions;
  if (d.validation === true) out.validation = true;
  out.locked = d.locked === true;
  out.lockedForUser = d.locked === true && !atLeast(s.level, 'ADMIN');
  if (cell.objectValue !== undefined) out.objectValue = cell.objectValue;
  if (cell.displayValue !== undefined && !ro.exclude.has('displayValue')) out.displayValue = cell.displayValue;
  const formula = s.formulaText(f);
  if (formula !== undefined) out.formula = formula;
  if (cell.hyperlink !== undefined) out.hyperlink = cell.hyperlink;
  if (cell.image !== undefined && !ro.exclude.has('image')) {
    const { altText, ...image } = cell.image;
    out.image = ro.exclude.has('imageAltText') || altText === undefined ? image : { ...image, altText };
  }
  if (ro.include.has('format') && f.cell.f !== undefined && !isDefaultFormat(f.cell.f)) out.format = f.cell.f;
  out.createdAt = ts(f.createdAt, ro.numericDates);
  out.modifiedAt = ts(f.modifiedAt, ro.numericDates);
  if (ro.include.has('writerInfo')) {
    const cb = s.users(f.createdBy);
    const mb = s.users(f.modifiedBy);
    if (cb) out.createdBy = { email: cb.email, name: cb.name ?? cb.email };
    if (mb) out.modifiedBy = { email: mb.email, name: mb.name ?? mb.email };
  }
  return out;
}

/** The SheetSummary object: `{ fields }` in index order. */
export function presentSummary(s: SummaryRead, ro: ReadOptions, permalinkBase: string): { fields: Record<string, unknown>[] } {
  return { fields: s.fields.map((f) => presentField(s, f, ro, permalinkBase)) };
}
