/**
 * Limits of spec section 8 that the sheet engine enforces, and the codes used when one is
 * exceeded. Services import these rather than repeating the numbers.
 */
import { LimitExceeded } from './errors.ts';

/**
 * Rows per add or update request. Exceeding it gives 1061 ("Max count exceeded for field
 * {0}", with {0} = "rows"): the catalogue's generic max-count code fits a request array that
 * is too long better than 1008 (unparseable) or 1160 (bulk request invalid).
 */
export const MAX_ROWS_PER_REQUEST = 500;

/** Cells per sheet (columns x rows). Exceeding it gives 1061 with {0} = "cells". */
export const MAX_CELLS_PER_SHEET = 500_000;

/** Inbound cell links per sheet. Exceeding it gives 1061 with {0} = "linkInFromCell". */
export const MAX_INBOUND_CELL_LINKS = 500_000;

/** Characters per cell value; longer text is silently truncated (never an error). */
export const MAX_CELL_CHARS = 4000;

/** Image alt text (error 1165 beyond it). */
export const MAX_ALT_TEXT_CHARS = 100;

/** Auto-number: at most 10 fill zeros, concatenated prefix+fill+suffix at most 40 characters. */
export const MAX_AUTO_NUMBER_FILL = 10;
export const MAX_AUTO_NUMBER_LENGTH = 40;

/**
 * Numeric cell values: the range the public service documents for its application, i.e. the
 * IEEE-754 integer-exact range +-2^53. Strict parsing rejects numbers outside it with 1148;
 * lenient parsing keeps them as text.
 */
export const MIN_CELL_NUMBER = -9007199254740992;
export const MAX_CELL_NUMBER = 9007199254740992;

/** Contacts in one MULTI_CONTACT_LIST cell (1240 beyond it). */
export const MAX_CONTACTS_PER_CELL = 20;

/** Values in one MULTI_PICKLIST cell (1277 when empty or beyond it). */
export const MAX_MULTI_PICKLIST_VALUES = 100;

/** Column title length (1041 beyond it). */
export const MAX_COLUMN_TITLE_CHARS = 4000;

/** Columns per sheet (1061 with {0} = "columns" beyond it). */
export const MAX_COLUMNS_PER_SHEET = 400;


/** 1061 when a request carries more than 500 rows. */
export function assertRowsPerRequest(count: number): void {
  if (count > MAX_ROWS_PER_REQUEST) throw new LimitExceeded(1061, 'rows');
}

/** 1061 when a sheet would hold more than 500,000 cells (columns x rows). */
export function assertCellsPerSheet(rowCount: number, columnCount: number): void {
  if (rowCount * columnCount > MAX_CELLS_PER_SHEET) throw new LimitExceeded(1061, 'cells');
}

/** 1061 when a sheet would receive more than 500,000 inbound cell links. */
export function assertInboundCellLinks(count: number): void {
  if (count > MAX_INBOUND_CELL_LINKS) throw new LimitExceeded(1061, 'linkInFromCell');
}
