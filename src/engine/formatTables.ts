/**
 * The FormatTables of spec section 2.1: the index of an entry is the value written at that
 * position of a format descriptor. Order is part of the API and never changes.
 */
export interface Currency { code: string; symbol: string }
export interface FontFamily { name: string; traits: string[] }

export const FORMAT_TABLES = {
  defaults: ',,,,,,,,,,,,,,,,',
  bold: ['none', 'on'],
  color: [
    'none', 'transparent',
    '#000000', '#0B347D', '#1061C3', '#237F2E', '#40B14B', '#592C00', '#5FB3F9', '#61058B',
    '#757575', '#7ED085', '#9210AD', '#974C00', '#991310', '#B9DDFC', '#BDBDBD', '#C6E7C8',
    '#D0AF8F', '#D190DA', '#E2F2FE', '#E5E5E5', '#E7F5E9', '#EA352E', '#EA5000', '#EBC700',
    '#EBC7EF', '#EEDCCA', '#F2E8DE', '#F4E4F5', '#F87E7D', '#FEFF00', '#FEFF85', '#FF8D00',
    '#FFCCD2', '#FFCD7A', '#FFE1AF', '#FFEBEE', '#FFED00', '#FFF3DF', '#FFFEE6', '#FFFFFF',
  ],
  currency: [
    { code: 'none', symbol: 'none' },
    { code: 'ARS', symbol: '$' }, { code: 'AUD', symbol: '$' }, { code: 'BRL', symbol: 'R$' },
    { code: 'CAD', symbol: '$' }, { code: 'CHF', symbol: 'CHF' }, { code: 'CLP', symbol: '$' },
    { code: 'CNY', symbol: '¥' }, { code: 'DKK', symbol: 'kr.' }, { code: 'EUR', symbol: '€' },
    { code: 'GBP', symbol: '£' }, { code: 'HKD', symbol: '$' }, { code: 'ILS', symbol: '₪' },
    { code: 'INR', symbol: '₹' }, { code: 'JPY', symbol: '¥' }, { code: 'KRW', symbol: '₩' },
    { code: 'MXN', symbol: '$' }, { code: 'NOK', symbol: 'kr' }, { code: 'NZD', symbol: '$' },
    { code: 'RUB', symbol: '₽' }, { code: 'SEK', symbol: 'kr' }, { code: 'SGD', symbol: '$' },
    { code: 'USD', symbol: '$' }, { code: 'ZAR', symbol: 'R' },
  ] as Currency[],
  dateFormat: [
    'LOCALE_BASED', 'MMMM_D_YYYY', 'MMM_D_YYYY', 'D_MMM_YYYY', 'YYYY_MM_DD_HYPHEN', 'YYYY_MM_DD_DOT',
    'DWWWW_MMMM_D_YYYY', 'DWWW_DD_MMM_YYYY', 'DWWW_MM_DD_YYYY', 'MMMM_D', 'D_MMMM',
  ],
  decimalCount: [['0', '1', '2', '3', '4', '5']],
  fontFamily: [
    { name: 'Arial', traits: ['sans-serif'] },
    { name: 'Roboto', traits: ['sans-serif'] },
    { name: 'Tahoma', traits: ['sans-serif'] },
    { name: 'Times New Roman', traits: ['serif'] },
    { name: 'Verdana', traits: ['sans-serif'] },
  ] as FontFamily[],
  fontSize: ['8', '9', '10', '12', '14', '16', '18', '20', '24', '28', '32', '36'],
  horizontalAlign: ['default', 'left', 'center', 'right'],
  italic: ['none', 'on'],
  numberFormat: ['none', 'NUMBER', 'CURRENCY', 'PERCENT'],
  strikethrough: ['none', 'on'],
  textWrap: ['none', 'on'],
  thousandsSeparator: ['none', 'on'],
  underline: ['none', 'on'],
  verticalAlign: ['default', 'top', 'middle', 'bottom'],
} as const;

/** Property name at each of the 17 positions of a format descriptor (spec section 1.1). */
export const FORMAT_POSITIONS = [
  'fontFamily', 'fontSize', 'bold', 'italic', 'underline', 'strikethrough', 'horizontalAlign',
  'verticalAlign', 'color', 'color', 'color', 'currency', 'decimalCount', 'thousandsSeparator',
  'numberFormat', 'textWrap', 'dateFormat',
] as const;

/** How many options each position may index into. */
export function optionCount(position: number): number {
  const prop = FORMAT_POSITIONS[position];
  if (prop === undefined) return 0;
  if (prop === 'decimalCount') return FORMAT_TABLES.decimalCount[0]!.length;
  return FORMAT_TABLES[prop].length;
}
