/**
 * A formula result must suit the column holding it: a DATE column expects a date, a CHECKBOX
 * column a boolean, a contact column an email address. Otherwise the cell shows the matching
 * "... EXPECTED" error. Blank and errors always fit.
 */
import { dateValue, err, isError, type ColumnType, type Scalar } from './values.ts';

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const DURATION = /^\s*-?\d+(\.\d+)?\s*[wdhm]?\s*$/i;

export function fitColumn(v: Scalar, type: ColumnType): Scalar {
  if (v === null || v === '' || isError(v)) return v;
  switch (type) {
    case 'DATE':
      return typeof v === 'object' && v.kind === 'date' ? dateValue(Math.floor(v.days)) : err('#DATE EXPECTED');
    case 'DATETIME':
    case 'ABSTRACT_DATETIME':
      return typeof v === 'object' && v.kind === 'date' ? v : err('#DATE EXPECTED');
    case 'CHECKBOX':
      return typeof v === 'boolean' ? v : err('#BOOLEAN EXPECTED');
    case 'CONTACT_LIST':
    case 'MULTI_CONTACT_LIST':
      return typeof v === 'string' && EMAIL.test(v.trim()) ? v : err('#CONTACT EXPECTED');
    case 'DURATION':
      return typeof v === 'number' || (typeof v === 'string' && DURATION.test(v)) ? v : err('#NUMBER EXPECTED');
    case 'PREDECESSOR':
      return typeof v === 'string' || typeof v === 'number' ? v : err('#INVALID COLUMN VALUE');
    default:
      return v;
  }
}
